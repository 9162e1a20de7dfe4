extension InterstitialEvent {
    /// How an event occupies the integrated timeline (`AVPlayerInterstitialEvent.TimelineOccupancy`).
    public enum TimelineOccupancy: String, Hashable, Sendable, Codable, CaseIterable {
        /// X-TIMELINE-OCCUPIES=POINT: a single point.
        case singlePoint
        /// X-TIMELINE-OCCUPIES=RANGE: a range as long as the interstitial.
        case fill

        /// The X-TIMELINE-OCCUPIES value.
        public var attributeValue: String { self == .fill ? "RANGE" : "POINT" }
    }

    /// X-TIMELINE-OCCUPIES: "POINT" when absent or unrecognized (App. D.2; profile R24 reports it as
    /// given and never promotes a point to a range).
    public var timelineOccupancy: TimelineOccupancy {
        get { timelineOccupiesValue == "RANGE" ? .fill : .singlePoint }
        set { timelineOccupiesValue = newValue.attributeValue }
    }

    /// X-TIMELINE-STYLE=PRIMARY: the event is shown undistinguished from primary content
    /// (`supplementsPrimaryContent`); "HIGHLIGHT" when absent or unrecognized.
    public var supplementsPrimaryContent: Bool {
        get { timelineStyleValue == "PRIMARY" }
        set { timelineStyleValue = newValue ? "PRIMARY" : "HIGHLIGHT" }
    }

    /// X-CONTENT-MAY-VARY: false only for "NO", when every viewer gets the same content and
    /// coordinated playback may continue through the event; "missing is treated as YES" (R24).
    public var contentMayVary: Bool {
        get { contentMayVaryValue != "NO" }
        set { contentMayVaryValue = newValue ? "YES" : "NO" }
    }
}
