import HLSPlaylist

extension Rule {
    // MARK: Date ranges (§4.4.5.1, §6.2.1, §6.2.4)

    /// `daterange-program-date-time`: a playlist with date ranges has no PROGRAM-DATE-TIME.
    public static let dateRangeProgramDateTime = Rule(
        id: "daterange-program-date-time", severity: .error,
        summary: "A playlist with EXT-X-DATERANGE tags has no EXT-X-PROGRAM-DATE-TIME tag.",
        reference:
            "§4.4.5.1: \"If a Playlist contains an EXT-X-DATERANGE tag, it MUST also contain at least one EXT-X-PROGRAM-DATE-TIME tag.\""
    )
    /// `daterange-start-date`: the first tag of a date range has no START-DATE.
    public static let dateRangeStartDate = Rule(
        id: "daterange-start-date", severity: .error,
        summary: "An EXT-X-DATERANGE has no START-DATE and no earlier tag with its ID had one.",
        reference:
            "§4.4.5.1: START-DATE \"… is REQUIRED\", unless \"a preceding EXT-X-DATERANGE tag with the same ID attribute value\" in the Playlist had one."
    )
    /// `daterange-end-date`: END-DATE is before START-DATE.
    public static let dateRangeEndDate = Rule(
        id: "daterange-end-date", severity: .error, summary: "END-DATE is earlier than START-DATE.",
        reference: "§4.4.5.1: END-DATE is OPTIONAL and MUST be equal to or later than START-DATE.")
    /// `daterange-duration`: DURATION and END-DATE disagree.
    public static let dateRangeDuration = Rule(
        id: "daterange-duration", severity: .error, summary: "DURATION and END-DATE are both present but disagree.",
        reference:
            "§4.4.5.1: if both DURATION and END-DATE are present, END-DATE MUST equal START-DATE plus DURATION."
    )
    /// `daterange-cue`: CUE holds both PRE and POST.
    public static let dateRangeCue = Rule(
        id: "daterange-cue", severity: .error, summary: "CUE includes both PRE and POST.",
        reference: "§4.4.5.1: \"A CUE attribute MUST NOT include both PRE and POST.\"")
    /// `daterange-end-on-next`: END-ON-NEXT without CLASS, or with DURATION or END-DATE.
    public static let dateRangeEndOnNext = Rule(
        id: "daterange-end-on-next", severity: .error,
        summary: "END-ON-NEXT is used without CLASS, or together with DURATION or END-DATE.",
        reference:
            "§4.4.5.1: END-ON-NEXT must be YES and requires a CLASS attribute; date ranges with it MUST NOT carry DURATION or END-DATE."
    )
    /// `enumerated-list-repeat`: an enumerated-string-list repeats a value.
    public static let enumeratedListRepeat = Rule(
        id: "enumerated-list-repeat", severity: .warning, summary: "An enumerated-string-list repeats a value.",
        reference: "§4.2: an enumerated-string-list SHOULD NOT repeat any enumerated-string.")

    // MARK: Interstitials (App. D)

    /// `interstitial-asset`: not exactly one of X-ASSET-URI and X-ASSET-LIST.
    public static let interstitialAsset = Rule(
        id: "interstitial-asset", severity: .error,
        summary: "An interstitial has neither or both of X-ASSET-URI and X-ASSET-LIST.",
        reference:
            "App. D.2: \"The EXT-X-DATERANGE tag MUST have either the X-ASSET-URI attribute or the X-ASSET-LIST attribute. It MUST NOT have both.\""
    )
    /// `interstitial-asset-uri`: X-ASSET-URI is not an absolute URI.
    public static let interstitialAssetURI = Rule(
        id: "interstitial-asset-uri", severity: .error, summary: "X-ASSET-URI is not an absolute URI.",
        reference:
            "App. D.2: X-ASSET-URI is a quoted-string holding an absolute URI for a single interstitial asset.")
    /// `interstitial-attribute-type`: a schema attribute has the wrong type.
    public static let interstitialAttributeType = Rule(
        id: "interstitial-attribute-type", severity: .error,
        summary: "An interstitial attribute does not have the type the schema gives.",
        reference:
            "App. D.2/D.3: X-ASSET-URI and X-ASSET-LIST are quoted-strings; X-RESUME-OFFSET is a signed-decimal-floating-point; X-PLAYOUT-LIMIT a decimal-floating-point; X-SNAP and X-RESTRICT enumerated-string-lists; X-CONTENT-MAY-VARY, X-TIMELINE-OCCUPIES and X-TIMELINE-STYLE quoted-strings; X-SKIP-CONTROL-OFFSET and X-SKIP-CONTROL-DURATION decimal-integers; X-SKIP-CONTROL-LABEL-ID a quoted-string of characters from [a-zA-Z-_] only."
    )
    /// `interstitial-enumeration`: an unknown value that clients ignore.
    public static let interstitialEnumeration = Rule(
        id: "interstitial-enumeration", severity: .warning,
        summary: "An interstitial attribute has an unrecognized value, which clients ignore.",
        reference:
            "§4.2: clients \"MUST ignore any unrecognized enumerated-strings in an enumerated-string-list.\" App. D.2: unrecognized values of X-CONTENT-MAY-VARY, X-TIMELINE-OCCUPIES and X-TIMELINE-STYLE are treated as if the attribute were missing."
    )
    /// `interstitial-query-id`: an asset URI lacks `_HLS_interstitial_id`.
    public static let interstitialQueryID = Rule(
        id: "interstitial-query-id", severity: .warning,
        summary:
            "An X-ASSET-URI or X-ASSET-LIST lacks the _HLS_interstitial_id query parameter with the date range ID.",
        reference:
            "App. D.4: packagers SHOULD add the _HLS_interstitial_id query parameter, with the date range ID as its value, to X-ASSET-URI and X-ASSET-LIST URIs."
    )
    /// `interstitial-query-reserved`: an asset URI defines another `_HLS_` parameter.
    public static let interstitialQueryReserved = Rule(
        id: "interstitial-query-reserved", severity: .warning,
        summary:
            "An X-ASSET-URI or X-ASSET-LIST carries a reserved _HLS_ query parameter other than _HLS_interstitial_id.",
        reference: "App. D.4: packagers SHOULD NOT define other query parameters prefixed with _HLS_.")
    /// `interstitial-skip-control`: skip-control duration or label without an offset.
    public static let interstitialSkipControl = Rule(
        id: "interstitial-skip-control", severity: .warning,
        summary:
            "X-SKIP-CONTROL-DURATION or X-SKIP-CONTROL-LABEL-ID without X-SKIP-CONTROL-OFFSET offers no skip button.",
        reference:
            "App. D.3: X-SKIP-CONTROL-OFFSET gives when the skip button appears; AVFoundation's skipControlTimeRange: if its start or duration is invalid, the event is not skippable."
    )
    /// `interstitial-preroll-skip`: a VOD pre-roll without X-RESUME-OFFSET skips the start of the content.
    public static let interstitialPreRollSkip = Rule(
        id: "interstitial-preroll-skip", severity: .warning,
        summary:
            "A CUE=\"PRE\" interstitial of a VOD has a duration and no X-RESUME-OFFSET, so primary resumes that far in and its start is never shown.",
        reference:
            "App. D.2: X-RESUME-OFFSET is OPTIONAL; \"If absent, its value is the duration of the interstitial.\" Add X-RESUME-OFFSET=0 to insert the pre-roll instead (profile R3)."
    )
    /// `interstitial-duration`: DURATION differs from the assets' duration.
    public static let interstitialDuration = Rule(
        id: "interstitial-duration", severity: .warning,
        summary:
            "The date range's DURATION (or PLANNED-DURATION) differs from the duration of the interstitial assets.",
        reference:
            "App. D.2: \"If present, the duration (or planned duration) of the Date Range SHOULD be the duration of the interstitial asset(s)\"."
    )

    // MARK: Across playlists (--recursive)

    /// `renditions-date-ranges`: media playlists disagree on their date ranges.
    public static let renditionsDateRanges = Rule(
        id: "renditions-date-ranges", severity: .error,
        summary: "Media playlists of one presentation carry different date ranges, or different attributes for one.",
        reference:
            "§6.2.4: \"Any Playlist with Date Ranges MUST contain the same set of Date Ranges as the others that do … MUST have the same ID attribute value and contain the same set of attribute/value pairs.\""
    )
    /// `renditions-date-ranges-missing`: a variant stream plays without any date ranges.
    public static let renditionsDateRangesMissing = Rule(
        id: "renditions-date-ranges-missing", severity: .error,
        summary: "A variant stream has no playlist with date ranges although other playlists have them.",
        reference:
            "§6.2.4: \"If any Playlist contains Date Ranges, then at least one Playlist in any playable combination of Renditions of any Variant Stream MUST contain Date Ranges.\""
    )
    /// `renditions-interstitial-order`: same-start interstitials in different orders.
    public static let renditionsInterstitialOrder = Rule(
        id: "renditions-interstitial-order", severity: .error,
        summary: "Interstitials scheduled for the same time appear in different orders in different media playlists.",
        reference:
            "App. D.2: interstitials scheduled for the same time \"MUST appear in the same order in all Media Playlists.\""
    )
    /// `renditions-program-date-time`: some media playlists have PROGRAM-DATE-TIME and others not.
    public static let renditionsProgramDateTime = Rule(
        id: "renditions-program-date-time", severity: .error,
        summary: "Some media playlists of a presentation have EXT-X-PROGRAM-DATE-TIME and others do not.",
        reference:
            "§6.2.4: if any Media Playlist of a Multivariant Playlist has EXT-X-PROGRAM-DATE-TIME, all of them MUST, with consistent mappings of date to timestamp."
    )
    /// `renditions-load`: a playlist of the presentation cannot be loaded.
    public static let renditionsLoad = Rule(
        id: "renditions-load", severity: .error,
        summary: "A media playlist that the multivariant playlist names cannot be loaded or is not a playlist.",
        reference:
            "§4.4.6.2: the URI line after EXT-X-STREAM-INF \"specifies a Media Playlist\"; §4.4.6.1: the URI of EXT-X-MEDIA \"identifies the Media Playlist file\"."
    )
    /// `interstitial-load`: an asset list or asset cannot be loaded.
    public static let interstitialLoad = Rule(
        id: "interstitial-load", severity: .error,
        summary: "An X-ASSET-LIST, X-ASSET-URI or asset-list URI cannot be loaded.",
        reference:
            "App. D.2: a relative X-ASSET-LIST \"MUST resolve successfully against every Playlist URI\"; App. D.5: servers \"MUST respond\" to asset and asset-list requests."
    )
    /// `asset-list-schema`: the asset list is not the JSON the schema defines.
    public static let assetListSchema = Rule(
        id: "asset-list-schema", severity: .error,
        summary: "An X-ASSET-LIST response is not a JSON object with an ASSETS array of URI and DURATION.",
        reference:
            "App. D.2: the JSON object MUST contain ASSETS, an array of Asset-Description objects that each MUST have URI (a string) and DURATION (decimal-floating-point seconds); SKIP-CONTROL has OFFSET, DURATION and LABEL-ID."
    )
    /// `asset-list-uri`: an asset URI in an asset list is not absolute.
    public static let assetListURI = Rule(
        id: "asset-list-uri", severity: .error, summary: "A URI in an asset list is not absolute.",
        reference: "App. D.2: each asset's URI is the absolute URI of a single interstitial asset.")
    /// `interstitial-vod`: an interstitial asset is not a VOD playlist.
    public static let interstitialVOD = Rule(
        id: "interstitial-vod", severity: .error, summary: "An interstitial asset is not a VOD playlist.",
        reference: "App. D.1: \"interstitials MUST be VOD assets\".")
    /// `interstitial-nested`: an interstitial asset schedules interstitials of its own.
    public static let interstitialNested = Rule(
        id: "interstitial-nested", severity: .warning,
        summary: "An interstitial asset schedules interstitials of its own, which clients ignore.",
        reference: "App. D.1: \"Interstitials scheduled inside other interstitials MUST be ignored by clients.\"")
    /// `interstitial-compatibility`: an asset's media differ from the primary's.
    public static let interstitialCompatibility = Rule(
        id: "interstitial-compatibility", severity: .warning,
        summary:
            "An interstitial asset's codecs, frame rate, aspect ratio, audio sample rate or channels differ from the primary's.",
        reference:
            "App. D.1: interstitial assets may use different codecs from the primary, but this may cause transition delays."
    )
    /// `interstitial-language`: an asset lacks a language the primary offers.
    public static let interstitialLanguage = Rule(
        id: "interstitial-language", severity: .warning,
        summary: "An interstitial asset lacks a rendition in a language the primary offers.",
        reference:
            "App. D.1: it is RECOMMENDED that interstitial assets offer the same languages as the primary asset."
    )

    // MARK: App. F

    /// `preload-attribute`: a Preload date range lacks X-URI, X-TARGET-ID or X-TARGET-CLASS.
    public static let preloadAttribute = Rule(
        id: "preload-attribute", severity: .error,
        summary:
            "A Preload date range lacks X-URI, X-TARGET-ID or X-TARGET-CLASS as a quoted-string; clients ignore it.",
        reference:
            "App. F: the com.apple.hls.preload attributes X-URI, X-TARGET-ID and X-TARGET-CLASS are quoted-strings and REQUIRED."
    )
    /// `preload-duration`: a Preload date range has neither DURATION nor END-DATE.
    public static let preloadDuration = Rule(
        id: "preload-duration", severity: .error,
        summary: "A Preload date range has neither DURATION nor END-DATE; clients ignore it.",
        reference: "App. F: a com.apple.hls.preload Date Range \"MUST have a DURATION or END-DATE attribute\".")
    /// `preload-cue`: a Preload date range has CUE or END-ON-NEXT.
    public static let preloadCue = Rule(
        id: "preload-cue", severity: .error,
        summary: "A Preload date range has CUE or END-ON-NEXT; clients ignore it.",
        reference: "App. F: a com.apple.hls.preload Date Range \"MUST NOT have a CUE or END-ON-NEXT attribute\".")

    // MARK: Live reloads (--watch)

    /// `reload-daterange-changed`: a date range changes or loses a value between reloads.
    public static let reloadDateRangeChanged = Rule(
        id: "reload-daterange-changed", severity: .error,
        summary: "Between reloads, a date range changes or loses an attribute value.",
        reference:
            "§4.4.5.1.1: a later tag with the same ID \"can introduce new attributes but cannot change (or lose) attributes of the existing Date Range.\""
    )
    /// `reload-daterange-removed`: a date range disappears while it still maps to a segment.
    public static let reloadDateRangeRemoved = Rule(
        id: "reload-daterange-removed", severity: .error,
        summary: "A date range is removed while a date in its range still maps to a segment in the playlist.",
        reference:
            "§6.2.1: the server MUST NOT remove an EXT-X-DATERANGE tag \"if any date in the range maps to a Media Segment in the Playlist\"."
    )

    /// The rules of the date-range and interstitial validator, beyond `playlistRules`.
    public static let interstitialRules: [Rule] = [
        .dateRangeProgramDateTime, .dateRangeStartDate, .dateRangeEndDate, .dateRangeDuration, .dateRangeCue,
        .dateRangeEndOnNext, .enumeratedListRepeat, .interstitialAsset, .interstitialAssetURI,
        .interstitialAttributeType, .interstitialEnumeration, .interstitialQueryID, .interstitialQueryReserved,
        .interstitialSkipControl, .interstitialPreRollSkip, .interstitialDuration, .renditionsDateRanges,
        .renditionsDateRangesMissing,
        .renditionsInterstitialOrder, .renditionsProgramDateTime, .renditionsLoad, .interstitialLoad, .assetListSchema,
        .assetListURI,
        .interstitialVOD, .interstitialNested, .interstitialCompatibility, .interstitialLanguage,
        .preloadAttribute, .preloadDuration, .preloadCue, .reloadDateRangeChanged, .reloadDateRangeRemoved,
    ]

    /// Every rule `hlsi validate` applies, parser rules first, then the SCTE-35 signal rules, the
    /// media rules (`--media`) last.
    public static let allRules: [Rule] = playlistRules + interstitialRules + scheduleRules + signalRules + mediaRules
}
