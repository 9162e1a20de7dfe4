import HLSInterstitials
import HLSPlaylist

/// How the served breaks are written into a playlist (a content's `interstitials`): as plain
/// interstitial date ranges (``TagForm``) or as one Date Range Schedule (``ScheduleForm``).
///
/// The stitched form (ads spliced into the primary's segments, ``StitchedService``) is the next
/// form: it would write the served breaks as the ads' segments for one viewer's decisions, with the
/// job's key extended by those decisions (or none: not kept), in place of the ``StitchedService``
/// reading the tag form's playlist back.
protocol PlaylistForm: Sendable {
    /// The bytes of `source` with `served` written in, for `mounted`; 502 when they cannot go in.
    func write(
        _ served: FirstServings.Served, into source: PlaylistSource, mounted: ContentLibrary.Mounted
    ) throws(APIError) -> [UInt8]
}

/// The served breaks as plain interstitial date ranges, with the preload hints.
struct TagForm: PlaylistForm {
    /// ``PlaylistRenderer/render(_:hints:into:removingSignals:schedule:)`` with no schedule.
    func write(
        _ served: FirstServings.Served, into source: PlaylistSource, mounted: ContentLibrary.Mounted
    ) throws(APIError) -> [UInt8] {
        try PlaylistRenderer.render(
            served.planned, hints: served.hints, into: source.result, removingSignals: source.removingSignals)
    }
}

/// The served breaks as one Date Range Schedule, its document kept for `schedule.json`
/// (``ScheduleDocuments/publish(_:mounted:)``); as plain tags when they do not fit one.
struct ScheduleForm: PlaylistForm {
    /// Where the documents are kept.
    let documents: ScheduleDocuments

    /// The schedule's one tag in place of the planned date ranges, with the preload hints.
    func write(
        _ served: FirstServings.Served, into source: PlaylistSource, mounted: ContentLibrary.Mounted
    ) throws(APIError) -> [UInt8] {
        try PlaylistRenderer.render(
            served.planned, hints: served.hints, into: source.result, removingSignals: source.removingSignals,
            schedule: try documents.publish(served.planned, mounted: mounted))
    }
}
