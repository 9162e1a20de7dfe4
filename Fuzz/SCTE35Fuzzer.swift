// libFuzzer entry point for the SCTE 35 decoder. Built by Fuzz/run.sh together with the SCTE35 sources:
// every input must decode or fail with an error located inside it, without crashing or hanging; what
// decodes must encode back to the same bytes and render as JSON and text. Each input is also tried with
// a valid header length and CRC patched in (so fuzzing reaches the command and descriptors), and as hex
// or base64 text.

@_cdecl("LLVMFuzzerTestOneInput")
public func scte35FuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    if bytes.count >= 14, bytes.count <= 4000 {
        var patched = bytes
        let sectionLength = patched.count + 4 - 3
        patched[0] = 0xFC
        patched[1] = patched[1] & 0xF0 | UInt8(sectionLength >> 8)
        patched[2] = UInt8(sectionLength & 0xFF)
        let crc = MPEG2CRC32.checksum(patched)
        patched += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        check(patched)
    }
    let text = String(decoding: bytes.prefix(16_384), as: UTF8.self)
    do {
        _ = try SpliceInfoSection.decode(text: text)
    } catch {
        guard error.offset >= 0, error.offset <= max(text.utf8.count, 4096) else {
            fatalError("text error outside the input")
        }
    }
    return 0
}

private func check(_ bytes: [UInt8]) {
    do {
        let section = try SpliceInfoSection.decode(bytes)
        guard (try? section.encode()) == bytes else { fatalError("round trip failed") }
        guard (try? SpliceInfoSection.decode(section.encode())) == section else { fatalError("decode not stable") }
        guard let json = try? section.renderedJSON(), json.hasPrefix("{") else { fatalError("JSON rendering failed") }
        guard (try? section.renderedText()) != nil else { fatalError("text rendering failed") }
    } catch {
        guard error.offset >= 0, error.offset <= bytes.count else { fatalError("error outside the input: \(error)") }
        guard !error.message.isEmpty else { fatalError("error without a message") }
    }
}
