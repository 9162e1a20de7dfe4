import HLSPlaylist

extension PlaybackStateMachine {
    /// The settings the machine reads (the driver's configuration, without its I/O settings).
    package struct Configuration: Sendable {
        /// The session's `_HLS_primary_id` (R19).
        package var primaryID: String
        /// How far ahead of an event its asset list is requested (R18).
        package var lookahead: MediaTime
        /// How much primary media is buffered ahead.
        package var forwardBuffer: MediaTime
        /// Whether media segments are loaded (playlists and asset lists always are).
        package var loadsSegments: Bool
        /// Where primary starts (from its first segment); nil: the default start point.
        package var startTime: MediaTime?
        /// The random source of preload points (App. F): a number in `0..<bound`; nil: a
        /// pseudo-random number derived from the session's primary ID and the hint's ID.
        package var random: (@Sendable (_ bound: UInt64) -> UInt64)?
        /// The most Date Range Schedule documents loading at once (R27): a playlist that names many
        /// schedules has them loaded a few at a time, the next as one finishes.
        package var concurrentScheduleLoads = 4
        /// The most transitions handled at one clock time; reaching it is a trace warning (a
        /// transition that would not end).
        package var transitionLimit = 10_000
        /// The most steps of time one input moves through; reaching it is a trace warning and
        /// the clock jumps to the input's time.
        package var stepLimit = 100_000

        /// Creates the settings.
        package init(
            primaryID: String, lookahead: MediaTime = MediaTime(seconds: 10),
            forwardBuffer: MediaTime = MediaTime(seconds: 30), loadsSegments: Bool = true, startTime: MediaTime? = nil
        ) {
            self.primaryID = primaryID
            self.lookahead = lookahead
            self.forwardBuffer = forwardBuffer
            self.loadsSegments = loadsSegments
            self.startTime = startTime
        }
    }
}
