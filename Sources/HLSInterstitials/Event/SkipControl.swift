import HLSPlaylist

/// When a skip button is offered in an interstitial (App. D.3), from the X-SKIP-CONTROL-* attributes
/// or the asset list's SKIP-CONTROL object, which overrides them.
///
/// Offset and duration are measured from the start of the whole interstitial, not of each asset.
public struct SkipControl: Hashable, Sendable {
    /// Seconds of interstitial played before the button shows; 0 shows it at once. Nil: not skippable.
    public var offset: MediaTime?
    /// How long the button shows; nil shows it for the rest of the interstitial.
    public var duration: MediaTime?
    /// The key of a localized label; nil asks for the app's default label.
    public var labelID: String?

    /// Creates a skip control.
    public init(offset: MediaTime? = nil, duration: MediaTime? = nil, labelID: String? = nil) {
        self.offset = offset
        self.duration = duration
        self.labelID = labelID
    }

    /// Whether a label ID has the form App. D.3 gives: characters from [a-zA-Z-_] only, at least one.
    public static func isValidLabelID(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "-" || $0 == "_"
            }
    }

    /// OFFSET or DURATION as App. D.3 types them, from the tag (X-SKIP-CONTROL-OFFSET,
    /// X-SKIP-CONTROL-DURATION) or the asset list's SKIP-CONTROL object (whose keys have the
    /// attributes' types): a decimal-integer, so whole seconds, not negative. Nil when `seconds`
    /// breaks that: the field is then ignored in both places, and the validator reports it.
    public static func wholeSeconds(_ seconds: Double) -> MediaTime? {
        guard seconds.isFinite, seconds >= 0, seconds <= 9_000_000_000, seconds.rounded(.towardZero) == seconds else {
            return nil
        }
        return MediaTime(seconds: Int(seconds))
    }

    /// LABEL-ID as App. D.3 types it, from the tag or the asset list: `text` when it has the
    /// characters [a-zA-Z-_] only (``isValidLabelID(_:)``), else nil (ignored, and reported).
    public static func labelID(_ text: String) -> String? { isValidLabelID(text) ? text : nil }

    /// Whether no field is set.
    public var isEmpty: Bool { offset == nil && duration == nil && labelID == nil }

    /// The window, measured from the start of the interstitial, in which skipping is offered
    /// (Apple's `skipControlTimeRange`): nil without an offset; an open end without a duration.
    public var window: (start: MediaTime, end: MediaTime?)? {
        guard let offset else { return nil }
        return (offset, duration.map { offset + $0 })
    }

    /// This skip control with the fields `other` sets taking precedence (the asset list's
    /// SKIP-CONTROL "overrides" the tag's attributes).
    public func overridden(by other: SkipControl?) -> SkipControl {
        guard let other else { return self }
        return SkipControl(
            offset: other.offset ?? offset, duration: other.duration ?? duration, labelID: other.labelID ?? labelID)
    }
}
