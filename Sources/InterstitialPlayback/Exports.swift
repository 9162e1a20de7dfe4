// The engine's public types (commands, trace events, monitor notifications) are part of the
// player's API.
@_exported import PlaybackEngine
