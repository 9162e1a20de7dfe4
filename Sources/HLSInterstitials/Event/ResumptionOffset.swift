import HLSPlaylist

/// Where primary playback resumes after an interstitial, relative to where it was scheduled.
public enum ResumptionOffset: Hashable, Sendable, CustomStringConvertible {
    /// A definite offset in seconds; negative values replay primary content, zero resumes where
    /// primary was suspended (X-RESUME-OFFSET).
    case time(MediaTime)
    /// The wall-clock time elapsed in the interstitial, "typically suitable for live broadcasts"
    /// (AVFoundation's `kCMTimeIndefinite`; profile R4).
    case indefinite

    /// The definite offset, or nil for ``indefinite``.
    public var time: MediaTime? {
        if case .time(let value) = self { return value }
        return nil
    }

    /// The offset in seconds, or `indefinite`.
    public var description: String {
        switch self {
        case .time(let value): value.description
        case .indefinite: "indefinite"
        }
    }
}
