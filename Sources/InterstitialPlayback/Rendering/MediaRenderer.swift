import HLSPlaylist
import NIOConcurrencyHelpers

/// A loaded media segment on its way to presentation.
public struct MediaChunk: Sendable {
    /// The URL it came from.
    public var url: String
    /// Its bytes.
    public var bytes: [UInt8]
}

/// Where media goes: the player enqueues every loaded segment and flushes on seeks and transitions.
///
/// The engine keeps time itself on its clock; a renderer decodes and presents (or, like
/// ``CountingRenderer``, only accounts for what it was given).
public protocol MediaRenderer: Sendable {
    /// Takes a loaded segment.
    func enqueue(_ chunk: MediaChunk)
    /// Drops what was enqueued and not yet presented.
    func flush()
}

/// The built-in renderer: it presents nothing and decodes nothing, so playback runs in real time on
/// the player's clock (or in no time on a manual one); it counts what it was given.
public final class CountingRenderer: MediaRenderer {
    /// What the renderer received.
    public struct Statistics: Sendable, Hashable {
        /// Segments enqueued.
        public var segments = 0
        /// Bytes enqueued.
        public var bytes = 0
        /// Flushes.
        public var flushes = 0
    }

    private let state = NIOLockedValueBox(Statistics())

    /// Creates a renderer.
    public init() {}

    /// What it received so far.
    public var statistics: Statistics { state.withLockedValue { $0 } }

    /// Counts a segment.
    public func enqueue(_ chunk: MediaChunk) {
        state.withLockedValue {
            $0.segments += 1
            $0.bytes += chunk.bytes.count
        }
    }

    /// Counts a flush.
    public func flush() { state.withLockedValue { $0.flushes += 1 } }
}
