import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers

/// Reads the breaks a live channel's playlists signal (SCTE-35 markers: ``SignalRecognizer``) into
/// its planner, reports the markers refused (``SignalRefusalLog``, profile R29), and keeps each
/// upstream channel's primary signals for its renditions without markers (``primarySignals(_:)``),
/// aged on the server's injected ``ServerClock``; it records the early returns and withdrawals the
/// signals decide (``recordOutcomes(_:withdrawals:target:)``).
final class SignalReader: Sendable {
    private let refusals: SignalRefusalLog
    private let state: ServerState
    private let sources: ContentSources
    private let logger: Logger
    private let clock: any ServerClock
    /// The signalled breaks' durations, for a learned expected break (standing decisions).
    private let breakLengths: BreakLengthLog
    /// The signals of each upstream channel's primary, for its renditions without markers
    /// (``primarySignals(_:)``), by content ID, with the clock's time they were read at.
    private let primaries = NIOLockedValueBox<[String: (at: MediaTime, breaks: [SignalledBreak])]>([:])

    /// The most signalled breaks of one playlist that become interstitials (the last ones, nearest
    /// the live edge): a live window holds a few; an upstream with thousands of markers costs a
    /// bounded amount of planning and first servings per fetch.
    static let maximumSignalledBreaks = 64

    /// How long the primary's signals serve the renditions without markers: a second, well under a
    /// live playlist's target duration.
    static let primarySignalsLifetime = MediaTime(seconds: 1)

    /// A reader that reports refusals to `refusals`, loads primaries from `sources`, ages what it
    /// keeps on `clock` and
    /// records signalled outcomes on `state`.
    init(
        refusals: SignalRefusalLog, state: ServerState, sources: ContentSources, logger: Logger, clock: any ServerClock,
        breakLengths: BreakLengthLog
    ) {
        self.breakLengths = breakLengths
        self.refusals = refusals
        self.state = state
        self.sources = sources
        self.logger = logger
        self.clock = clock
    }

    /// Gives `planner` the breaks `playlist` (parsed as `parsed`) signals, when the channel converts
    /// signals (``ServerConfiguration/Content/signals``); the markers refused are logged and counted
    /// once each (``SignalRefusalLog``, profile R29).
    ///
    /// A rendition of an upstream channel whose playlist carries no marker at all (packagers often
    /// write them into the video playlists only) takes the breaks its presentation's primary media
    /// playlist signals, so that every media playlist gets each break whichever is requested first.
    /// Returns whether the breaks came from the primary's playlist (a rendition without markers of
    /// an upstream channel), so that what is planned depends on more than `playlist`.
    @discardableResult
    func signals(
        _ playlist: MediaPlaylist, _ parsed: ParseResult, content: ServerConfiguration.Content,
        into planner: inout BreakPlanner
    ) async -> Bool {
        guard content.signals == .scte35 else { return false }
        let document = parsed.document
        let recognition = SignalRecognizer.recognize(
            playlist, document: document, file: document.file,
            clock: content.signalInserter.map { _ in SignalInserter.clock(epoch: content.epoch) })
        refusals.report(
            SignalRefusal.find(
                in: playlist, document: document, parserDiagnostics: parsed.diagnostics, recognition: recognition),
            channel: content.path)
        planner.signalled = Array(recognition.breaks.suffix(Self.maximumSignalledBreaks))
        breakLengths.observe(Target(.live, content.id), planner.signalled)
        if recognition.breaks.count > Self.maximumSignalledBreaks {
            logger.warning(
                "\(content.path): \(recognition.breaks.count) signalled breaks in one playlist; only the last \(Self.maximumSignalledBreaks) become interstitials"
            )
        }
        planner.snapSignals = content.snapSignals
        if recognition.isSilent, case .upstream = content.origin {
            planner.signalled = await primarySignals(content)
            return true
        }
        return false
    }

    /// The breaks an upstream channel's primary media playlist signals, fetched at most once per
    /// ``primarySignalsLifetime`` of the server's clock (none when it cannot be loaded).
    func primarySignals(_ content: ServerConfiguration.Content) async -> [SignalledBreak] {
        let now = clock.now
        if let kept = primaries.withLockedValue({ $0[content.id] }), now - kept.at < Self.primarySignalsLifetime {
            return kept.breaks
        }
        let breaks: [SignalledBreak]
        do {
            let (location, media) = try await sources.source(content).primary()
            breaks = Array(SignalRecognizer.recognize(media, file: location).breaks.suffix(Self.maximumSignalledBreaks))
        } catch {
            logger.debug("cannot load the primary of \(content.path) for its signals: \(error)")
            breaks = []
        }
        primaries.withLockedValue { $0[content.id] = (now, breaks) }
        return breaks
    }

    /// Records the early returns signalled for breaks served with their planned duration (R12), so the
    /// X-PLAYOUT-LIMIT served stays, also across restarts and replicas (the first one decided wins),
    /// and the served breaks withdrawn because they were cancelled before they started.
    func recordOutcomes(
        _ planned: [BreakPlanner.Planned], withdrawals: [String], target: Target
    ) async {
        let returns = planned.compactMap { entry in
            entry.earlyReturn.map { (ServedKey(target, entry.event.identifier), $0) }
        }
        guard !returns.isEmpty || !withdrawals.isEmpty else { return }
        do {
            try await state.update { transaction in
                for (key, limit) in returns where transaction.state.earlyReturns[key] == nil {
                    transaction.apply(.earlyReturn(key, playoutLimit: limit))
                }
                for id in withdrawals where !transaction.state.withdrawn.contains(ServedKey(target, id)) {
                    transaction.apply(.withdraw(ServedKey(target, id)))
                }
            }
        } catch {
            logger.error(
                "cannot record \(returns.count) signalled early returns and \(withdrawals.count) withdrawals of \(target): \(error)"
            )
        }
    }
}
