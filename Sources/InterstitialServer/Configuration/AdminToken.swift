/// Whether an admin token is strong enough to face the internet: the server warns at start when it
/// is not (SECURITY.md).
///
/// The admin token guards the whole admin API and `/metrics`; nothing the server publishes derives
/// from it, so it can only be guessed online, but a short or repetitive one still falls to guessing.
enum AdminToken {
    /// The fewest characters of a strong token (32 hexadecimal digits are 128 random bits).
    static let minimumLength = 32
    /// The fewest distinct characters of a strong token (random hexadecimal has about 14 of 16 in 32).
    static let minimumDistinct = 10

    /// Why `token` is weak, or nil when it is long and varied enough (or empty: no admin API).
    static func weakness(_ token: String) -> String? {
        guard !token.isEmpty else { return nil }
        let length = token.unicodeScalars.count
        guard length >= minimumLength else {
            return "\(length) characters, fewer than \(minimumLength)"
        }
        let distinct = Set(token.unicodeScalars).count
        guard distinct >= minimumDistinct else {
            return "only \(distinct) distinct characters, fewer than \(minimumDistinct)"
        }
        return nil
    }
}
