extension StreamValidator {
    /// One resource a validation loaded (a playlist, an asset list, an asset), with what was found in it.
    ///
    /// ``StreamValidator/Report/checked`` lists them in the order they were checked, so that a
    /// report says what it covered and not only what was wrong.
    public struct CheckedResource: Sendable, Hashable, Codable {
        /// What the resource is.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// A multivariant playlist.
            case multivariantPlaylist = "multivariant-playlist"
            /// A media playlist (the one asked for, or one a multivariant playlist names).
            case mediaPlaylist = "media-playlist"
            /// A playlist that could not be loaded, so its kind is unknown.
            case playlist
            /// An interstitial's X-ASSET-LIST.
            case assetList = "asset-list"
            /// A Date Range Schedule's document (X-URI, profile R27).
            case schedule
            /// An interstitial's asset (its X-ASSET-URI or an asset list's URI).
            case asset
            /// A media playlist of a multivariant asset.
            case assetMediaPlaylist = "asset-media-playlist"
            /// A reload of a watched live playlist.
            case reload
            /// An initialization segment (EXT-X-MAP) read by a media validation.
            case initSegment = "init-segment"
            /// A media segment read by a media validation.
            case segment = "media-segment"

            /// `media playlist`, `asset list`, ….
            public var words: String { rawValue.replacingOccurrences(of: "-", with: " ") }
        }

        /// The outcome of checking one resource.
        public enum Outcome: String, Sendable, Hashable, Codable {
            /// Loaded, with no errors or warnings.
            case ok
            /// Loaded, with warnings only.
            case warnings
            /// Loaded, with errors.
            case errors
            /// It could not be loaded.
            case failed
        }

        /// What the resource is.
        public var kind: Kind
        /// Its URL or path.
        public var location: String
        /// The interstitial that names it, for asset lists and assets.
        public var interstitial: String?
        /// The errors found in it.
        public var errors: Int
        /// The warnings found in it.
        public var warnings: Int
        /// Why it could not be loaded.
        public var failure: String?

        /// Creates a checked resource.
        public init(
            kind: Kind, location: String, interstitial: String? = nil, errors: Int = 0, warnings: Int = 0,
            failure: String? = nil
        ) {
            self.kind = kind
            self.location = location
            self.interstitial = interstitial
            self.errors = errors
            self.warnings = warnings
            self.failure = failure
        }

        /// `failed` when it could not be loaded, else `errors`, `warnings` or `ok` by what was found.
        public var outcome: Outcome {
            if failure != nil { return .failed }
            return errors > 0 ? .errors : warnings > 0 ? .warnings : .ok
        }

        /// `media playlist video/prog.m3u8: 1 error, 2 warnings`, `asset https://… (interstitial "ad1"): ok`,
        /// or `…: cannot be loaded: REASON`.
        public var summary: String {
            let subject = "\(kind.words) \(location)" + (interstitial.map { " (interstitial \"\($0)\")" } ?? "")
            if let failure { return "\(subject): cannot be loaded: \(failure)" }
            if errors == 0 && warnings == 0 { return "\(subject): ok" }
            var counts: [String] = []
            if errors > 0 { counts.append("\(errors) error\(errors == 1 ? "" : "s")") }
            if warnings > 0 { counts.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
            return "\(subject): " + counts.joined(separator: ", ")
        }

        private enum CodingKeys: String, CodingKey {
            case kind, location, interstitial, errors, warnings, failure, result
        }

        /// Decodes the form ``encode(to:)`` writes (`result` is derived, so it is not read).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(Kind.self, forKey: .kind)
            location = try container.decode(String.self, forKey: .location)
            interstitial = try container.decodeIfPresent(String.self, forKey: .interstitial)
            errors = try container.decode(Int.self, forKey: .errors)
            warnings = try container.decode(Int.self, forKey: .warnings)
            failure = try container.decodeIfPresent(String.self, forKey: .failure)
        }

        /// Encodes every key, `null` included, and the `result` (``outcome``).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(location, forKey: .location)
            try container.encode(interstitial, forKey: .interstitial)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(failure, forKey: .failure)
            try container.encode(outcome, forKey: .result)
        }
    }
}

extension [StreamValidator.CheckedResource] {
    /// `1 multivariant playlist, 2 media playlists, 1 asset list, 2 assets (1 could not be loaded)`.
    public var countSummary: String {
        var parts: [String] = []
        for kind in StreamValidator.CheckedResource.Kind.allCases {
            let count = filter { $0.kind == kind }.count
            guard count > 0 else { continue }
            parts.append("\(count) \(kind.words)\(count == 1 ? "" : "s")")
        }
        let failed = filter { $0.failure != nil }.count
        return (parts.isEmpty ? "nothing" : parts.joined(separator: ", "))
            + (failed > 0 ? " (\(failed) could not be loaded)" : "")
    }
}
