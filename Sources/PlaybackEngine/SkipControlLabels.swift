import HLSInterstitials

/// How a skip button's label is found (Apple's controller `localizedStringsBundle` and
/// `localizedStringsTableName`, and the label Apple shows when they give none): the event's
/// X-SKIP-CONTROL-LABEL-ID (or the asset list's SKIP-CONTROL LABEL-ID) looked up in the
/// application's table, else ``defaultLabel``.
public struct SkipControlLabels: Hashable, Sendable {
    /// The application's table; nil: none given.
    public var table: LocalizedStringsTable?
    /// The label when the event names no key, no table is given, or the table lacks the key
    /// ("Skip", as Apple's player shows).
    public var defaultLabel: String

    /// Labels from `table`, with `defaultLabel` when it has none.
    public init(table: LocalizedStringsTable? = nil, defaultLabel: String = "Skip") {
        self.table = table
        self.defaultLabel = defaultLabel
    }

    /// The label for a skip control whose label key is `labelID`.
    public func label(for labelID: String?) -> String {
        labelID.flatMap { table?[$0] } ?? defaultLabel
    }
}
