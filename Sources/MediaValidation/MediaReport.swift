import Foundation

/// What `StreamValidator` measured in the media segments (`validate(_:recursive:media:)`).
public struct MediaReport: Sendable, Hashable, Codable {
    /// One variant stream's declared and measured bit rates.
    public struct Variant: Sendable, Hashable, Codable {
        /// The multivariant playlist it is in.
        public var playlist: String
        /// Its URI as the multivariant playlist writes it.
        public var uri: String
        /// The 1-based line of its EXT-X-STREAM-INF tag.
        public var line: Int
        /// Its BANDWIDTH.
        public var bandwidth: Int?
        /// Its AVERAGE-BANDWIDTH.
        public var averageBandwidth: Int?
        /// The largest sum of measured peak segment bit rates over its playable combinations of
        /// renditions (its media playlist with each audio rendition of its AUDIO group).
        public var measuredPeak: Int?
        /// The same for the measured average segment bit rates.
        public var measuredAverage: Int?
        /// The media playlists measured for it.
        public var playlists: [String]

        /// Creates a variant measurement.
        public init(
            playlist: String, uri: String, line: Int, bandwidth: Int?, averageBandwidth: Int?, measuredPeak: Int?,
            measuredAverage: Int?, playlists: [String]
        ) {
            self.playlist = playlist
            self.uri = uri
            self.line = line
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.measuredPeak = measuredPeak
            self.measuredAverage = measuredAverage
            self.playlists = playlists
        }
    }

    /// Every media playlist whose segments were read, primary first, then the interstitial assets'.
    public var playlists: [MeasuredPlaylist] = []
    /// Every variant stream whose bit rates were compared.
    public var variants: [Variant] = []
    /// The bytes downloaded (segments and initialization segments).
    public var bytesDownloaded = 0
    /// Whether the download budget (``MediaValidationOptions/maximumBytes``) stopped the reading.
    public var budgetExhausted = false
    /// How many segments were sampled per playlist (``MediaValidationOptions/sample``); nil when all were read.
    public var sample: Int?

    /// An empty report.
    public init() {}

    /// The segments read, across all playlists.
    public var segmentsRead: Int { playlists.map(\.segments.count).reduce(0, +) }

    /// The summary table of `hlsi validate --media`: per playlist, the segments read, their codecs, the
    /// largest EXTINF error and the bit rates; per variant, BANDWIDTH against the measured peak.
    public var table: String {
        func kbps(_ value: Int?) -> String { value.map { "\(($0 + 500) / 1000)k" } ?? "-" }
        var rows: [[String]] = [["playlist", "read", "codecs", "max |EXTINF-measured|", "peak", "average"]]
        for playlist in playlists {
            let name = (playlist.interstitial.map { "[\($0)] " } ?? "") + playlist.location
            rows.append([
                name, "\(playlist.segments.count)/\(playlist.segmentCount)",
                playlist.codecs.isEmpty ? "-" : playlist.codecs.joined(separator: ","),
                playlist.largestDurationError.map { "\(Int(($0 * 1000).rounded())) ms" } ?? "-",
                kbps(playlist.peakBitrate), kbps(playlist.averageBitrate),
            ])
        }
        var text = Self.render(rows)
        if !variants.isEmpty {
            var variantRows = [["variant", "BANDWIDTH", "measured peak", "AVERAGE-BANDWIDTH", "measured average"]]
            for variant in variants {
                variantRows.append([
                    "\(variant.playlist):\(variant.line) \(variant.uri)", kbps(variant.bandwidth),
                    kbps(variant.measuredPeak), kbps(variant.averageBandwidth), kbps(variant.measuredAverage),
                ])
            }
            text += "\n" + Self.render(variantRows)
        }
        let budget = budgetExhausted ? " (download budget reached)" : ""
        text += "\nread \(segmentsRead) segments, \(bytesDownloaded) bytes\(budget)\n"
        return text
    }

    private static func render(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = Swift.max(widths[column], cell.count) }
        }
        var text = ""
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                line +=
                    column == row.count - 1
                    ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }
            text += line + "\n"
        }
        return text
    }
}
