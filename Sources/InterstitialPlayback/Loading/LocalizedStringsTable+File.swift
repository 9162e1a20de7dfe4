import HLSInterstitials
import HLSLoading

extension LocalizedStringsTable {
    /// Reads the strings table in the file at `path`, its format from the name's extension
    /// (`.strings`, `.xcstrings`, `.json`); for a String Catalog, `languages` are the preferred ones,
    /// most preferred first. At most `maximumBytes` are read (`BoundedFileReader`).
    ///
    /// - Throws: `StringsTableError`: `strings-file` when the file cannot be read or its
    ///   extension is none of those, `strings-too-large`, else the parser's located error.
    public static func load(contentsOf path: String, languages: [String] = []) throws(StringsTableError) -> Self {
        guard let format = Format(fileName: path) else {
            throw StringsTableError(
                code: .file, "\(path): the name must end in .strings, .xcstrings or .json to say its format")
        }
        let bytes: [UInt8]
        do {
            bytes = try BoundedFileReader.read(path, limit: maximumBytes)
        } catch {
            switch error {
            case .missing: throw StringsTableError(code: .file, "\(path): no such file")
            case .directory: throw StringsTableError(code: .file, "\(path): is a folder")
            case .unreadable(let number):
                throw StringsTableError(code: .file, "\(path): cannot be read (errno \(number))")
            case .tooLarge:
                throw StringsTableError(code: .tooLarge, "\(path): larger than the \(maximumBytes) bytes allowed")
            }
        }
        return try parse(bytes, format: format, languages: languages)
    }
}
