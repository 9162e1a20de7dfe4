import HLSPlaylist
import PlaybackEngine

extension Player {
    /// Drives playback until the clock reaches `limit` (since the player was created), playback
    /// ends, or — on a manual clock — nothing more can happen (paused, nothing scheduled).
    ///
    /// Loads run as child tasks; those still in flight when it returns are cancelled and asked for
    /// again by a later call. Only one call runs at a time; a second returns at once.
    public func run(until limit: Duration? = nil) async {
        guard claimRun() else { return }
        defer { state.withLockedValue { $0.running = false } }
        await Self.drive([self], until: limit)
    }

    /// Marks the player as driven; false when a run already drives it.
    func claimRun() -> Bool {
        state.withLockedValue { state -> Bool in
            if state.running { return false }
            state.running = true
            return true
        }
    }

    /// What the run loop needs to know now: the loads to start (now counted in flight), the loads
    /// in flight, the next deadline (a scheduled command, the machine's, an observer's), whether
    /// playback ended and whether commands are still scheduled.
    func collect() -> (
        loads: [PlaybackStateMachine.LoadRequest], inFlight: Int, deadline: Duration?, ended: Bool,
        nothingScheduled: Bool
    ) {
        state.withLockedValue { state in
            let loads = state.pendingLoads
            state.pendingLoads = []
            state.inFlight += loads.count
            let due = state.scheduled.first?.time
            let machineDeadline = state.machine.nextDeadline
            let observerDeadline = state.observers.watchedTimes.compactMap {
                state.machine.clockTime(whenIntegratedReaches: $0)
            }.min()
            return (
                loads: loads, inFlight: state.inFlight,
                deadline: [due, machineDeadline, observerDeadline].compactMap { $0 }.min(),
                ended: state.machine.mode == .ended, nothingScheduled: state.scheduled.isEmpty
            )
        }
    }

    /// Drives several players together until the clock reaches `limit`, all of them end, or nothing
    /// more can happen. On a shared manual clock `limit` counts from the first player's creation;
    /// otherwise from each player's.
    ///
    /// On one shared ``ManualClock`` (players in a coordinated group in a test) the clock moves only
    /// when no player has a load in flight, to the earliest deadline of any of them, and every
    /// player catches up to it: loads take no time for any player, so the group stays exact. On
    /// other clocks each player runs on its own.
    public static func run(_ players: [Player], until limit: Duration? = nil) async {
        guard let first = players.first else { return }
        guard let manual = first.clock.manual, players.allSatisfy({ $0.clock.manual === manual }) else {
            await withTaskGroup(of: Void.self) { group in
                for player in players {
                    let local = limit.map { $0 + first.clock.origin - player.clock.origin }
                    group.addTask { await player.run(until: local) }
                }
            }
            return
        }
        let claimed = players.filter { $0.claimRun() }
        defer { for player in claimed { player.state.withLockedValue { $0.running = false } } }
        guard claimed.count == players.count else { return }
        await drive(players, until: limit)
    }

    /// The run loop: one player on its own clock, or players sharing one ``ManualClock``.
    ///
    /// Each turn starts the loads and beacons due, then stops (everything ended, or the limit
    /// reached: on a manual clock once no load is in flight, since loads take no time there), or
    /// waits: on a manual clock for the loads in flight, else it moves the clock to the earliest
    /// deadline (every player catches up to it); on another clock until that deadline or a wake-up.
    /// `limit` counts from the first player's creation. A player alone stops as soon as it ends
    /// (its loads in flight are cancelled); a group once no load is in flight either.
    static func drive(_ players: [Player], until limit: Duration?) async {
        guard let first = players.first else { return }
        let manual = first.clock.manual
        let alone = players.count == 1
        // A player alone wakes on its own stream (loads, beacons, commands); a group on one of its
        // own, woken by each load and beacon of any player.
        let (wakes, wake): (AsyncStream<Void>, AsyncStream<Void>.Continuation?) =
            alone
            ? (first.wake, nil) : AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let end = limit.map { first.clock.origin + $0 }
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        await withTaskGroup(of: Void.self) { group in
            var iterator = wakes.makeAsyncIterator()
            while !Task.isCancelled {
                let now = first.clock.origin + first.clock.now()
                var inFlight = 0
                var deadline: Duration?
                var allEnded = true
                var machinesEnded = true
                for player in players {
                    let status = player.collect()
                    for load in status.loads {
                        group.addTask {
                            await player.load(load)
                            wake?.yield()
                        }
                    }
                    // Beacons never hold playback (nor the manual clock): they are not loads in flight.
                    for beacon in player.takeBeacons() {
                        group.addTask {
                            await player.send(beacon)
                            wake?.yield()
                        }
                    }
                    inFlight += status.inFlight
                    if let due = status.deadline.map({ $0 + player.clock.origin }) {
                        deadline = min(deadline ?? due, due)
                    }
                    machinesEnded = machinesEnded && status.ended
                    allEnded = allEnded && status.ended && status.nothingScheduled
                }
                if allEnded && (alone || inFlight == 0) { break }
                if let end, now >= end, manual == nil || inFlight == 0 { break }
                let target = [deadline, end].compactMap { $0 }.min()
                if let manual {
                    if inFlight > 0 {
                        _ = await iterator.next()
                        continue
                    }
                    guard let target else { break }
                    // A player alone that ended stops rather than move the clock to the limit.
                    if alone, machinesEnded, deadline == nil || target == end { break }
                    if target > now { manual.advance(by: target - now) }
                    for player in players { player.tick() }
                } else {
                    timer?.cancel()
                    if let target {
                        let clock = first.clock
                        let continuation = first.wakeContinuation
                        let at = target - clock.origin
                        timer = Task {
                            try? await clock.sleep(at)
                            continuation.yield()
                        }
                    }
                    _ = await iterator.next()
                    first.tick()
                }
            }
            // The last beacons (an ad's complete at the end) are answered, each within its timeout.
            while !Task.isCancelled && players.contains(where: { $0.beaconsInFlight > 0 }) {
                _ = await iterator.next()
            }
            group.cancelAll()
        }
    }

    /// Applies the scheduled commands that are due and lets time pass.
    func tick() {
        let now = clock.now()
        var callbacks: [@Sendable () -> Void] = []
        state.withLockedValue { state in
            while let first = state.scheduled.first, first.time <= now {
                state.scheduled.removeFirst()
                let outcome = state.machine.handle(.command(first.command), at: first.time)
                Self.carryOut(outcome.actions, in: &state, renderer: renderer, callbacks: &callbacks)
            }
            Self.carryOut(state.machine.advance(to: now).actions, in: &state, renderer: renderer, callbacks: &callbacks)
        }
        for callback in callbacks { callback() }
    }

    /// Carries out one load and hands its result to the machine.
    func load(_ request: PlaybackStateMachine.LoadRequest) async {
        let input: PlaybackStateMachine.Input
        var measured: PlaybackStateMachine.Input?
        do {
            switch request.key {
            case .primary:
                let (reload, audio) = state.withLockedValue {
                    ($0.machine.timeline != nil, $0.machine.audioRenditionURL)
                }
                var presentation = try await loader.loadPrimary(
                    request.url, mediaOnly: reload, primaryID: configuration.primaryID,
                    preferred: configuration.preferredTracks)
                if reload, let audio {
                    (presentation.others, presentation.otherURLs) = await reloadRendition(audio)
                }
                input = .primaryLoaded(presentation)
            case .assetList(let id):
                input = .assetListLoaded(id, try await loader.loadAssetList(request.url))
            case .asset(let id, let index):
                let tracks = state.withLockedValue { $0.machine.assetTracks }
                input = .assetLoaded(
                    id, index,
                    try await loader.loadAsset(request.url, primaryID: configuration.primaryID, tracks: tracks))
            case .segment(let url):
                let started = clock.now()
                let chunk = try await loader.loadChunk(
                    request, initializationSections: renderer.wantsInitializationSections)
                measured = .throughputMeasured(bytes: chunk.bytes.count, duration: clock.now() - started)
                renderer.enqueue(chunk)
                input = .segmentLoaded(url)
            case .schedule(let identity):
                input = .scheduleLoaded(identity, await loader.loadSchedule(request.url))
            case .variant(let index):
                let (variant, tracks) = state.withLockedValue { ($0.machine.variants[index], $0.machine.tracks) }
                input = .variantLoaded(index, try await loadVariant(variant, tracks: tracks))
            }
        } catch {
            input = Task.isCancelled ? .loadCancelled(request.key) : .loadFailed(request.key, "\(error)")
        }
        let now = clock.now()
        var callbacks: [@Sendable () -> Void] = []
        state.withLockedValue { state in
            state.inFlight -= 1
            if let measured {
                Self.carryOut(
                    state.machine.handle(measured, at: now).actions, in: &state, renderer: renderer,
                    callbacks: &callbacks)
            }
            Self.carryOut(
                state.machine.handle(input, at: now).actions, in: &state, renderer: renderer, callbacks: &callbacks)
        }
        for callback in callbacks { callback() }
        wakeContinuation.yield()
    }
}
