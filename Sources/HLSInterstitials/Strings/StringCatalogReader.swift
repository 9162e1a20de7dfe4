/// Reads Apple's String Catalog (`.xcstrings`): `{"sourceLanguage": "en", "strings": {KEY:
/// {"localizations": {LANG: {"stringUnit": {"value": TEXT}}}}}}`, keeping for each key the text of
/// one language.
///
/// The language is the first of the preferred ones the key has (`fr-CA` also matches `fr`), else
/// the source language; a key with no text in the source language reads as itself, as Xcode
/// compiles it. Localizations given only as `variations` (plural, device) are passed over.
enum StringCatalogReader {
    /// The table of `document` for `languages`, most preferred first.
    static func read(_ document: JSONValue, languages: [String]) throws(StringsTableError) -> LocalizedStringsTable {
        var root = try JSONReader<StringsTableError>(document, code: .schema)
        let source = try root.requiredString("sourceLanguage")
        guard let entries = root.take("strings") else { return LocalizedStringsTable() }
        guard case .object(let members) = entries else {
            throw StringsTableError(code: .schema, path: "strings", "must be an object, not \(entries.typeName)")
        }
        guard members.count <= LocalizedStringsTable.maximumEntries else {
            throw StringsTableError(
                code: .tooMany, path: "strings",
                "\(members.count) entries, more than the \(LocalizedStringsTable.maximumEntries) allowed")
        }
        let order = preference(languages, source: source)
        var strings: [String: String] = [:]
        for (key, entry) in members.sorted(by: { $0.key < $1.key }) {
            let path = "strings.\(key)"
            try LocalizedStringsTable.checkLength(key, path: path)
            var reader = try JSONReader<StringsTableError>(entry, path: path, code: .schema)
            var texts: [String: String] = [:]
            switch reader.take("localizations") {
            case nil: break
            case .object(let localizations)?:
                for (language, value) in localizations {
                    let at = "\(path).localizations.\(language)"
                    var localization = try JSONReader<StringsTableError>(value, path: at, code: .schema)
                    guard var unit = try localization.object("stringUnit"), let text = try unit.string("value") else {
                        continue
                    }
                    try LocalizedStringsTable.checkLength(text, path: unit.at("value"))
                    texts[language.lowercased()] = text
                }
            case let other?:
                throw StringsTableError(
                    code: .schema, path: "\(path).localizations", "expected an object, found \(other.typeName)")
            }
            strings[key] = order.lazy.compactMap { texts[$0] }.first ?? key
        }
        return LocalizedStringsTable(strings)
    }
    /// The languages to look for, in order, lowercased: each preferred one then its base
    /// language, then the source language.
    static func preference(_ languages: [String], source: String) -> [String] {
        var order: [String] = []
        for language in languages + [source] {
            let tag = language.lowercased().replacingOccurrences(of: "_", with: "-")
            var candidates = [tag]
            var parts = tag.split(separator: "-")
            while parts.count > 1 {
                parts.removeLast()
                candidates.append(parts.joined(separator: "-"))
            }
            for candidate in candidates where !order.contains(candidate) { order.append(candidate) }
        }
        return order
    }
}
