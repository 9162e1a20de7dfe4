// The media rules moved to the pure module MediaValidation (issue 34); HLSLoading re-exports them,
// so `import HLSLoading` still offers `MediaValidator`, `MeasuredPlaylist`, `MediaReport` and
// `MediaValidationOptions`, which `StreamValidator`'s API uses.
@_exported import MediaValidation
