/// Why `insert` refused a request: the input, the JSON path or option, and the reason.
///
/// The project's one JSON error type (``JSONError``); its stable codes are `insert-request` (a bad
/// request), `insert-schedule` (a schedule file) and `insert-playlist` (a playlist that cannot take
/// interstitials), and its path is a JSON path (`interstitials[1].duration`) or an option name
/// (`--asset-uri`).
public typealias InsertionError = JSONError
