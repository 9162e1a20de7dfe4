import HLSPlaylist
import NIOConcurrencyHelpers

/// A loaded media segment on its way to presentation.
public struct MediaChunk: Sendable {
    /// The source a segment belongs to.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// The primary presentation.
        case primary
        /// Asset `assetIndex` (from 0) of the interstitial event `eventID`.
        case interstitial(eventID: String, assetIndex: Int)

        /// `primary`, or `EVENT-ID#INDEX`.
        public var description: String {
            switch self {
            case .primary: "primary"
            case .interstitial(let eventID, let assetIndex): "\(eventID)#\(assetIndex)"
            }
        }
    }

    /// The URL it came from.
    public var url: String
    /// Its bytes.
    public var bytes: [UInt8]
    /// The source it belongs to (nil when the loader did not say).
    public var source: Source?
    /// The URL of the media playlist (the rendition) that lists it.
    public var rendition: String?
    /// Its index in that playlist.
    public var index: Int?
    /// Its EXTINF duration.
    public var playlistDuration: MediaTime?
    /// The bytes of its Media Initialization Section (EXT-X-MAP), when the renderer asked for them
    /// (``MediaRenderer/wantsInitializationSections``) and the playlist has one.
    public var initializationSection: [UInt8]?

    /// Creates a chunk.
    public init(
        url: String, bytes: [UInt8], source: Source? = nil, rendition: String? = nil, index: Int? = nil,
        playlistDuration: MediaTime? = nil, initializationSection: [UInt8]? = nil
    ) {
        self.url = url
        self.bytes = bytes
        self.source = source
        self.rendition = rendition
        self.index = index
        self.playlistDuration = playlistDuration
        self.initializationSection = initializationSection
    }
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
    /// Whether the player must load each rendition's EXT-X-MAP (once) and pass it with every chunk:
    /// a renderer that reads the media needs it for fMP4. False unless a renderer says otherwise.
    var wantsInitializationSections: Bool { get }
}

extension MediaRenderer {
    /// False: the renderer does not read the media.
    public var wantsInitializationSections: Bool { false }
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
