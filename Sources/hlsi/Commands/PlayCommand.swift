import ArgumentParser
import Foundation
import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import PlaybackCoordination

/// `hlsi play`: a headless conformance player that prints what an Apple player would do.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a stream headless and print a trace of its interstitials, seeks and restrictions.",
        discussion: """
            Loads the primary playlist, asset lists, interstitial assets and (unless --no-segments) media \
            segments over HTTP, with _HLS_primary_id and X-PLAYBACK-SESSION-ID, and plays them on a clock \
            without decoding. --clock manual (the default for VOD) runs as fast as the loads allow, so an \
            hour of playback takes moments; --clock real (the default for live) plays in real time.

            --script runs commands at clock times: "at 5 seek 40; at 20 rate 2; at 30 skip". Commands: \
            play, pause, rate R, seek T, seek-date ISO-8601, seek-integrated T, seek-interstitial T, skip, \
            cancel [T|indefinite|invalid], events server|none, restrict ID SKIP,JUMP|none, auto on|off, \
            select audio LANG[,CHARACTERISTIC...]|default, select subtitles LANG[,CHARACTERISTIC...]|off, \
            handoff URL (hand the session to a receiver there, e.g. http://host:8080/handoff/tv, and stop).

            A multivariant primary starts with its first variant and switches by measured throughput (the \
            highest BANDWIDTH within 80 % of it; a manual clock measures nothing, so it stays): --variant N \
            plays variant N (0 is the first listed), --peak-bit-rate BPS leaves out variants above it.

            --group ws://host:8080/group/NAME joins a coordinated group through hlsi serve: play, pause, \
            rate and seeks of any member apply to all, on the real clock; JSON lines then carry groupTime \
            (the server's clock, seconds since 1970). --receive http://host:8080/handoff/NAME waits for a \
            session handed off there (hlsi handoff, or a script's handoff) and continues it.

            --media reads the timestamps of every loaded segment (fMP4 with its EXT-X-MAP, MPEG-TS, \
            packed audio) and adds mediaTransition lines: at each change between primary and an \
            interstitial asset, and between assets, each track's gap (gapMs > 0) or overlap (gapMs < 0) \
            in milliseconds, with endMs (where the track ends against the playlist's boundary) and \
            startMs (how late the track starts after the new source's first sample); then a \
            mediaSummary line.

            Assets and asset lists that carry X-AD-CREATIVE-SIGNALING (SVTA2053-2) have their tracking \
            beacons sent once each as they play (impression and start at an asset's first frame, quartiles \
            and complete of its played duration, skip on a skip, breakStart/breakEnd for the pod), each \
            reported as a beaconSent line with its type, url, dueAt and HTTP status or error; --no-beacons \
            sends none.

            Skip control (iOS 26 API): skippableStateChanged lines give the current event's state \
            (notSkippable, notYetEligible, eligible, noLongerEligible) and its button label, looked up by \
            X-SKIP-CONTROL-LABEL-ID in --strings FILE (a .strings file, a String Catalog .xcstrings read \
            for --language, or a flat JSON object), else --skip-label (default "Skip"); a script's skip \
            skips the current event (eventSkipped). interstitialEnded gives playedDuration and \
            playedEntirely; eventUnscheduled gives the error when the event's content had failed.

            Every line of --json output is an object with t (clock seconds), event, primaryTime and the \
            event's fields. Exit status: 0 when playback ran, 1 when the primary could not be loaded, \
            2 for usage errors.
            """
    )

    enum ClockKind: String, ExpressibleByArgument, CaseIterable {
        case manual, real
    }

    @Argument(help: "The primary playlist: an http(s) URL or a file (not with --receive).")
    var url: String?

    @Option(name: .long, help: "Join the coordinated group at this WebSocket URL (ws://host:port/group/NAME).")
    var group: String?

    @Option(name: .long, help: "With --group: wait until the group has this many members, then all start together.")
    var groupSize: Int?

    @Option(name: .long, help: "Wait for a session handed off to this URL (http://host:port/handoff/NAME) and play it.")
    var receive: String?

    @Option(name: .long, help: "Seconds --receive waits for a session.")
    var receiveTimeout: Double = 300

    @Option(name: .long, help: "The audio to select: LANG[,CHARACTERISTIC...] (default: the DEFAULT=YES rendition).")
    var audio: String?

    @Option(name: .long, help: "The subtitles to select: LANG[,CHARACTERISTIC...] (default: off).")
    var subtitles: String?

    @Option(name: .long, help: "Write the session (for hlsi handoff) to this file when playback stops.")
    var sessionOut: String?

    @Option(name: .long, help: "Where primary starts, in seconds from its first segment.")
    var start: Double?

    @Option(name: .long, help: "Timed commands, e.g. \"at 5 seek 40; at 20 rate 2; at 30 skip\".")
    var script: String?

    @Option(name: .long, help: "manual (as fast as possible) or real (default: manual for VOD, real for live).")
    var clock: ClockKind?

    @Option(
        name: .long,
        help: "Stop after this many clock seconds of playback (default: the end of a VOD; live runs until interrupted)."
    )
    var duration: Double?

    @Flag(name: .long, help: "Print one JSON object per line.")
    var json = false

    @Flag(name: .long, help: "Load playlists and asset lists only, not media segments.")
    var noSegments = false

    @Flag(name: .long, help: "Do not send the ad tracking beacons of played assets (X-AD-CREATIVE-SIGNALING).")
    var noBeacons = false

    @Flag(name: .long, help: "Read each segment's timestamps and report gaps and overlaps at every transition.")
    var media = false

    @Option(name: .long, help: "Seconds before an event at which its asset list is requested.")
    var lookahead: Double = 10

    @Option(
        name: .long,
        help: "Play this variant of a multivariant primary (0 is the first listed) instead of choosing by throughput.")
    var variant: Int?

    @Option(
        name: .long,
        help: "The highest variant BANDWIDTH to play, in bits per second (preferredPeakBitRate; default: no limit).")
    var peakBitRate: Double?

    @Option(name: .long, help: "The _HLS_primary_id to send (default: a new UUID).")
    var primaryID: String?

    @Option(
        name: .long,
        help: "Skip button labels by X-SKIP-CONTROL-LABEL-ID: a .strings, .xcstrings (String Catalog) or .json file.")
    var strings: String?

    @Option(
        name: .long, help: "With --strings FILE.xcstrings: the preferred languages, most preferred first (fr-CA,en).")
    var language: String?

    @Option(name: .long, help: "The skip button label when --strings gives none for an event.")
    var skipLabel: String = "Skip"

    func validate() throws {
        try checkSeconds(start, "--start")
        try checkSeconds(duration, "--duration", allowsZero: false)
        try checkSeconds(lookahead, "--lookahead")
        if let variant, !(0...9999).contains(variant) {
            throw ValidationError("--variant takes the index of a variant, 0 to 9999")
        }
        if let peakBitRate, !(peakBitRate > 0 && peakBitRate < 1e12) {
            throw ValidationError("--peak-bit-rate must be a positive number of bits per second, under 1e12")
        }
        if !(receiveTimeout > 0 && receiveTimeout < 1e6) {
            throw ValidationError("--receive-timeout must be a positive number of seconds, under 1e6")
        }
        if media && noSegments {
            throw ValidationError("--media reads the media segments: it cannot go with --no-segments")
        }
        switch (url, receive) {
        case (nil, nil): throw ValidationError("give the URL of a stream to play, or --receive URL")
        case (_?, _?): throw ValidationError("--receive plays the session it receives: give no stream URL with it")
        default: break
        }
        if let group, !(group.hasPrefix("ws://") || group.hasPrefix("wss://") || group.hasPrefix("http")) {
            throw ValidationError("--group takes a ws:// URL such as ws://127.0.0.1:8080/group/demo")
        }
        if let groupSize, group == nil || !(1...64).contains(groupSize) {
            throw ValidationError("--group-size takes 1 to 64 and needs --group")
        }
        if language != nil && strings == nil {
            throw ValidationError("--language picks the localization of --strings: give --strings FILE with it")
        }
        if skipLabel.isEmpty || skipLabel.count > 200 {
            throw ValidationError("--skip-label takes a label of 1 to 200 characters")
        }
        if group != nil && clock == .manual {
            throw ValidationError(
                "--group plays on the real clock: a manual clock cannot stay in sync with other processes")
        }
    }

    func run() async throws {
        let parsed: PlaybackScript
        do {
            parsed = try PlaybackScript(parsing: script ?? "")
        } catch {
            throw CommandFailure(message: "error: --script: \(error)", exitCode: 2)
        }
        var labels = SkipControlLabels(defaultLabel: skipLabel)
        if let strings {
            let languages = language.map { $0.split(separator: ",").map(String.init) } ?? []
            do {
                labels.table = try LocalizedStringsTable.load(contentsOf: strings, languages: languages)
            } catch {
                throw CommandFailure(message: error.rendered(source: strings), exitCode: 2)
            }
        }
        var configuration = Player.Configuration()
        if let primaryID { configuration.primaryID = primaryID }
        configuration.startTime = start.map { MediaTime(seconds: $0) }
        configuration.loadsSegments = !noSegments
        configuration.sendsBeacons = !noBeacons
        configuration.lookahead = MediaTime(seconds: lookahead)
        configuration.variantPolicy = VariantPolicy(pinnedVariant: variant, preferredPeakBitRate: peakBitRate ?? 0)
        configuration.preferredTracks = TrackSelection(
            audio: audio.flatMap { PlaybackScript.option($0, off: "default") },
            subtitles: subtitles.flatMap { PlaybackScript.option($0) })

        var session: PlaybackSession?
        if let receive {
            Output.standardError("waiting for a session at \(receive)")
            do {
                session = try await Player.receiveSession(
                    from: receive, timeout: .nanoseconds(MediaTime(seconds: receiveTimeout).nanoseconds))
            } catch {
                throw CommandFailure(message: "error: \(error)", exitCode: 1)
            }
        }
        let url = session?.url ?? self.url ?? ""

        // Whether the stream is live picks (or checks) the clock.
        let live: Bool
        do {
            live = try await Player.isLive(url: url, configuration: configuration)
        } catch {
            throw CommandFailure(message: "error: \(error)", exitCode: 1)
        }
        let kind = clock ?? (live || group != nil ? .real : .manual)
        if kind == .manual && live {
            throw CommandFailure(
                message:
                    "error: \(url) is live: its server adds segments in real time, which a manual clock cannot follow; use --clock real",
                exitCode: 2)
        }
        // --media: the renderer's lines join the trace, stamped with the player's clock.
        let stamp = PlayerStamp()
        let renderer: any MediaRenderer =
            media
            ? MediaTimingRenderer(
                now: stamp.now,
                onEvent: { [json] event in
                    if json {
                        Output.document(Array((event.json + "\n").utf8))
                    } else {
                        Output.standardOutput(event.description + "\n")
                    }
                }) : CountingRenderer()
        func makePlayer<C: Clock>(_ clock: C) -> Player where C.Duration == Duration {
            session.map { Player(session: $0, configuration: configuration, clock: clock, renderer: renderer) }
                ?? Player(item: PlayerItem(url: url), configuration: configuration, clock: clock, renderer: renderer)
        }
        let player = kind == .manual ? makePlayer(ManualClock()) : makePlayer(ContinuousClock())
        stamp.attach(player)
        player.skipControlLabels = labels
        for entry in parsed.entries { player.schedule(entry.command, at: .nanoseconds(entry.time.nanoseconds)) }

        var joined: PlaybackCoordinator?
        if let group {
            let socket = group.hasPrefix("http") ? "ws" + group.dropFirst("http".count) : group
            let joining = PlaybackCoordinator(player: player, transport: WebSocketCoordinationTransport(url: socket))
            do {
                try await joining.join(name: primaryID ?? "hlsi")
            } catch {
                await player.shutdown()
                throw CommandFailure(message: "error: \(error)", exitCode: 1)
            }
            joined = joining
        }
        let coordinator = joined
        // Subscribed before playback starts: a task that starts late (a loaded machine) must miss no
        // event, and must not wait for ever on a player already shut down.
        let events = player.traceEvents()
        let printer = Task { [json, coordinator] in
            for await event in events {
                var event = event
                if let coordinator {
                    let time = Double(coordinator.referenceTime(ofPlayerTime: event.time)) / 1e9
                    event.fields.append(("groupTime", .number((time * 1000).rounded() / 1000)))
                }
                if json {
                    Output.document(Array((event.json + "\n").utf8))
                } else {
                    Output.standardOutput(event.description + "\n")
                }
            }
        }
        if let coordinator, let groupSize {
            // Everyone starts together once the group is complete.
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(60))
            while coordinator.participants.count < groupSize && clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            guard coordinator.participants.count >= groupSize else {
                await coordinator.leave()
                await player.shutdown()
                throw CommandFailure(
                    message: "error: the group did not reach \(groupSize) members in 60 s", exitCode: 1)
            }
            player.play()
        } else if coordinator?.groupState == nil && session == nil {
            // A group that already has a state decides; a received session plays as it was.
            player.play()
        }
        // --duration counts from the start of playback (after waiting for a group to fill).
        let started = player.clockTime
        let limit = duration.map { started + .nanoseconds(MediaTime(seconds: $0).nanoseconds) }
        var failure: (any Error)?
        for handOff in parsed.handOffs {
            let at = Duration.nanoseconds(handOff.time.nanoseconds)
            if let limit, at > limit { break }
            await player.run(until: at)
            if player.hasEnded { break }
            do {
                try await player.handOff(to: handOff.url)
            } catch {
                failure = error
            }
            break
        }
        if failure == nil { await player.run(until: limit) }
        await coordinator?.leave()
        let failed = player.trace.contains { $0.kind == .ended && $0["reason"] != nil }
        if let sessionOut {
            do {
                try Data((player.session().text + "\n").utf8).write(to: URL(fileURLWithPath: sessionOut))
            } catch {
                failure = failure ?? CommandFailure(message: "error: cannot write \(sessionOut): \(error)", exitCode: 1)
            }
        }
        await player.shutdown()
        await printer.value
        (renderer as? MediaTimingRenderer)?.finish()
        if let failure { throw CommandFailure(message: "error: \(failure)", exitCode: 1) }
        if failed { throw ExitCode(1) }
    }
}
