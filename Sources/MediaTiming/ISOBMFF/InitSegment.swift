/// What an ISO BMFF initialization segment (`ftyp` + `moov`) says about its tracks.
///
/// An fMP4 media segment's times are counts of its track's timescale, which only the
/// initialization segment gives: read it once with ``MediaTimingParser/parseInitSegment(_:)`` and
/// pass it to ``MediaTimingParser/parse(_:initSegment:)`` for each media segment.
public struct InitSegment: Hashable, Sendable, Codable {
    /// The `ftyp` major brand, if there is an `ftyp`.
    public var majorBrand: String?
    /// The `mvhd` timescale (of edit list durations).
    public var movieTimescale: UInt32
    /// Whether the movie is fragmented (`moov` has an `mvex`).
    public var isFragmented: Bool
    /// The tracks, in `trak` order.
    public var tracks: [TrackDescription]

    /// Creates an initialization segment description.
    public init(majorBrand: String? = nil, movieTimescale: UInt32, isFragmented: Bool, tracks: [TrackDescription]) {
        self.majorBrand = majorBrand
        self.movieTimescale = movieTimescale
        self.isFragmented = isFragmented
        self.tracks = tracks
    }

    /// The track with `track_ID` `id`.
    public func track(id: UInt32) -> TrackDescription? { tracks.first { $0.trackID == id } }
}
