// libFuzzer entry point for the VAST and VMAP readers (issue 37: "fuzz VAST"). Built by Fuzz/run.sh with
// the HLSPlaylist, HLSInterstitials and AdDecisioning sources, so Foundation's XMLParser (libxml2) runs
// under AddressSanitizer too.
//
// Every input must read, or fail with an error located inside it, within the reader's bounds; reading
// twice gives the same result; a tree that parses must write back (XMLNode.xmlText) to XML that parses
// to the same tree; a VMAP places at most its maximum of breaks, in time order. The input is also
// tried wrapped in a `<VAST>` root, so that fuzzing reaches the reader past the root element.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func vastFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkDocument(bytes)
    if bytes.first != UInt8(ascii: "<") || bytes.count < 2 || bytes[1] != UInt8(ascii: "?") {
        let open = Array("<VAST version=\"4.2\"><Ad id=\"f\"><InLine>".utf8)
        checkDocument(open + bytes + Array("</InLine></Ad></VAST>".utf8))
    }
    return 0
}

/// Reads `bytes` as an ad server's answer and checks the invariants.
func checkDocument(_ bytes: [UInt8]) {
    let reader = VASTReader()
    let first = Result { () throws(VASTError) in try AdDocument.read(bytes, reader: reader) }
    let second = Result { () throws(VASTError) in try AdDocument.read(bytes, reader: reader) }
    guard first == second else { fatalError("two reads of the same bytes differ") }
    switch first {
    case .failure(let error):
        checkLocated(error, in: bytes)
    case .success(.vast(let document)):
        guard document.ads.count <= reader.limits.maximumAds, document.notes.count <= 1000 else {
            fatalError("a VAST document over the reader's bounds")
        }
        for ad in document.ads where ad.creatives.count > reader.limits.maximumCreatives {
            fatalError("an ad with more creatives than the limit")
        }
    case .success(.vmap(let document)):
        guard document.breaks.count <= VMAPPlacement.defaultMaximumBreaks else { fatalError("VMAP breaks") }
        let duration = MediaTime(seconds: 3600)
        let placement = document.placement(
            duration: duration, cuePoints: [MediaTime(seconds: 600), MediaTime(seconds: 1800)])
        let times = placement.breaks.map { $0.time(duration: duration) }
        guard placement.breaks.count <= VMAPPlacement.defaultMaximumBreaks, placement.dropped >= 0,
            times.allSatisfy({ $0 >= .zero && $0 <= duration })
        else { fatalError("a VMAP placement out of bounds") }
    }
    checkRoundTrip(bytes)
}

/// An error's line, column and byte offset are inside the input. libxml2 counts columns in the
/// document converted to UTF-8: an ISO-8859-n or Windows-1252 byte is up to 3 bytes there.
func checkLocated(_ error: VASTError, in bytes: [UInt8]) {
    let lines = bytes.count { $0 == 0x0A || $0 == 0x0D } + 1
    guard error.location.line >= 1, error.location.line <= lines + 1, error.location.column >= 1,
        error.location.column <= 3 * bytes.count + 2
    else { fatalError("an error outside the input: \(error) (\(bytes.count) bytes, \(lines) lines)") }
    if let offset = error.byteOffset, offset < 0 || offset > bytes.count {
        fatalError("an error offset outside the input: \(error)")
    }
    guard !error.message.isEmpty else { fatalError("an error without a message") }
}

/// A tree that parses writes back to XML that parses to the same tree (locations aside).
func checkRoundTrip(_ bytes: [UInt8]) {
    guard let tree = try? XMLTreeBuilder.parse(bytes, limits: .standard) else { return }
    let written = Array(tree.xmlText.utf8)
    let again: XMLNode
    do {
        let unbounded = XMLLimits(
            maximumBytes: .max, maximumTextCharacters: .max, maximumNameBytes: .max, maximumAttributeValueBytes: .max)
        again = try XMLTreeBuilder.parse(written, limits: unbounded)
    } catch {
        fatalError("a parsed tree writes back to XML that does not parse: \(error)\n\(tree.xmlText.prefix(2000))")
    }
    guard same(tree, again) else {
        fatalError("a parsed tree writes back to another tree:\n\(tree.xmlText.prefix(2000))")
    }
}

func same(_ left: XMLNode, _ right: XMLNode) -> Bool {
    left.name == right.name && left.attributes == right.attributes && left.text == right.text
        && left.children.count == right.children.count && zip(left.children, right.children).allSatisfy(same)
}
