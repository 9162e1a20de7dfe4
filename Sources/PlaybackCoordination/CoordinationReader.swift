import HLSInterstitials
import HLSPlaylist

/// The project's one JSON reader (``JSONReader``) for coordination messages and hand-off sessions.
typealias CoordinationReader = JSONReader<CoordinationError>

extension JSONReader where Failure == CoordinationError {
    /// A playback rate: above 0 and at most 64 (the player's limit); 1 when absent.
    mutating func rate(_ key: String) throws(CoordinationError) -> Double {
        let rate = try number(key) ?? 1
        guard rate > 0, rate <= 64 else { throw error(key, "expected a rate above 0 and at most 64, found \(rate)") }
        return rate
    }
}

extension MediaTime {
    /// Seconds as a JSON number.
    var json: JSONValue { .number(seconds) }
}
