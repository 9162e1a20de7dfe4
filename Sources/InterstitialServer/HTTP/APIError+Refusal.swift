extension APIError.Code {
    /// The API's code for a request the request guard refuses: the case of the same name (and raw
    /// value). The reader's codes are their own enum because the HTTP fuzzer compiles the reader
    /// alone; this switch is where the two meet, so a new refusal code must be placed here.
    init(_ refusal: RequestHeadReader.Refusal.Code) {
        switch refusal {
        case .badRequestLine: self = .badRequestLine
        case .badHeader: self = .badHeader
        case .badLineEnding: self = .badLineEnding
        case .badFraming: self = .badFraming
        case .headerTimeout: self = .headerTimeout
        case .bodyTimeout: self = .bodyTimeout
        case .requestLineTooLong: self = .requestLineTooLong
        case .headersTooLarge: self = .headersTooLarge
        case .tooManyConnections: self = .tooManyConnections
        }
    }
}
