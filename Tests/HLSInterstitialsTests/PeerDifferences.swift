/// The peer cases whose assertions differ from the toolkit's results for a documented reason: the
/// peer's own rule (from the case's `source.txt` and the corpus README) or a rule of
/// docs/behavior-profile.md. ``PeerCorpusTests`` fails on a difference that is not listed here, and
/// on a listed case that agrees.
enum PeerDifferences {
    // Reasons shared by several cases.
    static let xCue =
        "peer rule: the peer accepts X-CUE as an alias of CUE; the spec's attribute is CUE (§4.4.5.1), so X-CUE is a client attribute here"
    static let lenientSyntax =
        "peer rule: Media3 reads attributes with regular expressions that tolerate whitespace and missing commas; §4.2 allows neither (\"no whitespace\", an enumerated-string never contains whitespace), so the toolkit reads no value there, and an interstitial left without X-ASSET-URI is not scheduled (App. D.2, issue 33)"
    static let reload =
        "R12: the event arrives in a later reload (playlist-2.m3u8…); this suite schedules the first playlist, the engine's merging of reloads is tested in LiveRuleTests and EngineStateTests"
    static let postAtEnd =
        "peer rule: Media3 turns an event whose (snapped) start is the end of a VOD window into the post-roll group (C.TIME_END_OF_SOURCE); the toolkit keeps it a mid-roll at the end (R6, R22: only events after the end are left out) and reports POST only for CUE=POST (R9)"
    static let effectiveDuration =
        "R3: the effective duration is min(X-PLAYOUT-LIMIT, D) with D = assets, DURATION, END-DATE − START-DATE, PLANNED-DURATION; Media3 takes X-PLAYOUT-LIMIT before DURATION (README: X-RESUME-OFFSET > X-PLAYOUT-LIMIT > DURATION …)"
    static let decimalSkipControl =
        "App. D.3 types X-SKIP-CONTROL-OFFSET and -DURATION as decimal-integers; Media3 reads decimals. The toolkit ignores a value that breaks the type, in the tag and in an asset list alike (SkipControl.wholeSeconds, issue 33)"
    static let preStart =
        "R9: a CUE=PRE event starts where playback starts (the toolkit's join point on live, the start on VOD); the peer's parser reports its START-DATE mapped to the timeline"
    static let hlsjsLivePre =
        "R9, R26, R21: the toolkit joins live at the hold-back before the end and lists primary from the first segment; hls.js lists its live PRE first with its own resume rule (README: live start = end − 3 × target, items chain at the same start). After the PRE the event covering the join point plays from its offset, as hls.js does (issue 33)"

    /// Reasons by case (`peer/case`).
    static let documented: [String: String] = [
        "hlsjs/ic-7906-live-preroll-starts-first-asset": hlsjsLivePre,
        "hlsjs/ic-7906-live-reload-new-midroll-start-offset": reload,
        "hlsjs/ic-cumulative-resume-offsets-same-start":
            "R21, R24: on the integrated timeline POINT events take no length and primary skipped by a positive offset is absent; hls.js's integrated ranges add every interstitial's playout",
        "hlsjs/ic-live-preroll-once-explicit-resume-offset-reload": hlsjsLivePre,
        "hlsjs/ic-live-preroll-once-implicit-resume-live-edge": hlsjsLivePre,
        "hlsjs/ic-preroll-cue-pre-vod": xCue,
        "hlsjs/parser-daterange-interstitials-cue-and-start-times":
            "R9: PRE starts at the playback start and POST at the end of primary; R6: the start is snapped (X-SNAP=OUT); the hls.js parser test asserts the dates mapped to the timeline, before cues and snapping",
        "media3/loader-clipped-window":
            "peer rule: Media3's VOD helper reports period time with the clipped window's offset and places PRE at the window start (README); its regex reads X-SNAP=\"OUT\"X-ASSET-URI without a comma (§4.2: the toolkit does not), and an event at the window end becomes its post-roll group (R22 keeps it at the end)",
        "media3/loader-live-new-ad-after-played-ad": reload,
        "media3/loader-live-preroll-added-on-reload-postroll-ignored": reload,
        "media3/loader-live-preroll-at-default-position":
            "R9: a live PRE plays where playback joins, the hold-back before the end (12 s here); Media3 places it at the window's default position, which its test harness sets to duration / 2 (README)",
        "media3/loader-live-three-updates-merge": reload,
        "media3/loader-playout-limit-beats-duration": effectiveDuration,
        "media3/loader-resume-offset-precedence": effectiveDuration,
        "media3/loader-snap-out-exact-boundary": postAtEnd,
        "media3/loader-snap-out-live-window-offset":
            "R1, R6: a START-DATE after the last segment maps by extrapolation and nothing snaps outside the range the playlist covers; Media3 clamps the snap to the window's last boundary",
        "media3/loader-snap-out-merge-same-boundary-live":
            "R5: X-SNAP IN applies only to the resumption point of the group's last member (ad0-1, without IN); Media3 snaps the first member's resumption and sums the members' offsets after it",
        "media3/loader-snap-out-vod": postAtEnd,
        "media3/loader-three-postrolls-merged": lenientSyntax + "; " + postAtEnd,
        "media3/parser-all-attributes": lenientSyntax,
        "media3/parser-invalid-durations-and-resume-offset-sign":
            "§4.2, §6.3.1: PLANNED-DURATION=- 2.222 has whitespace, so the tag has illegal syntax and \"Clients SHOULD ignore\" it; Media3's regex reads the other attributes",
        "media3/parser-skip-control": decimalSkipControl,
        "media3/parser-skip-control-invalid": decimalSkipControl,
        "media3/parser-unknown-cue-values-x-cue": xCue,
        "media3/parser-unknown-restrictions": lenientSyntax,
        "media3/parser-unknown-snap-types": lenientSyntax,
        "media3/parser-vod-asset-uri-file-pre-mid-post":
            "R9: a CUE=POST event plays at the end of primary; the Media3 parser test asserts its START-DATE mapped to the timeline",
        "shaka/parser-interstitial-asset-list-metadata": preStart,
        "shaka/parser-interstitial-asset-uri-metadata": preStart,
    ]
}
