// libFuzzer entry point for the HTTP request head guard (issue 37, item 2). Built by Fuzz/run.sh
// with Sources/InterstitialServer/HTTP/RequestHead/*.swift alone (it has no NIO or Hummingbird).
//
// The input is a connection's bytes, after a first byte that chooses how they are split into reads.
// Invariants: no crash; every step takes at least one byte and no more than it was given, but a
// refusal, which takes none and is final; the head held stays within the limits; a whole head
// begins with a known method and ends with CRLF CRLF; the head as passed on (`passedHead`: without
// an ignored `Upgrade`, with `Connection: close` for the close option) is the head itself unless
// rewritten, and read again is one whole head framed alike that carries the close option when the
// first did; and the decision (the heads, their bodies' framing, the heads as passed on, the bytes of
// bodies and blank lines, the refusal) is the same read whole and in parts.

struct Outcome: Equatable {
    var heads: [RequestHeadReader.Body] = []
    var passed: [[UInt8]] = []
    var blank = 0
    var body = 0
    var refusal: RequestHeadReader.Refusal?
}

let fuzzLimits = RequestHeadReader.Limits(requestLineBytes: 256, headerBytes: 1024, headerCount: 8)

func readAll(_ bytes: ArraySlice<UInt8>, seed: UInt8) -> Outcome {
    var reader = RequestHeadReader(limits: fuzzLimits)
    var outcome = Outcome()
    var state = UInt32(seed) &* 2_654_435_761 | 1
    var index = bytes.startIndex
    while index < bytes.endIndex {
        var size = bytes.count
        if seed != 0 {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            size = Int(state % UInt32(seed)) + 1
        }
        let end = min(bytes.endIndex, index + size)
        var offset = index
        while offset < end {
            let given = end - offset
            let step = reader.read(bytes[offset..<end])
            switch step {
            case .blank(let count), .partial(let count), .body(let count):
                guard count >= 1, count <= given else { fatalError("step \(step) of \(given) bytes") }
                offset += count
                if case .blank = step { outcome.blank += count }
                if case .body = step { outcome.body += count }
            case .head(let count, let head):
                guard count >= 1, count <= given else { fatalError("head step of \(count) for \(given) bytes") }
                offset += count
                let held = reader.head
                guard held.count <= fuzzLimits.requestLineBytes + fuzzLimits.headerBytes + 4,
                    held.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]),
                    RequestHeadReader.methods.contains(where: { held.starts(with: $0 + [0x20]) }),
                    head.requestLineEnd <= held.count
                else { fatalError("accepted a head it should not: \(held)") }
                outcome.heads.append(head.body)
                let passed = reader.passedHead
                guard head.rewritten || passed == held else { fatalError("a head passed on changed: \(passed)") }
                if head.rewritten { checkRewritten(passed, head) }
                outcome.passed.append(passed)
            case .refuse(let refusal):
                guard reader.refusal == refusal, reader.read(bytes[offset..<end]) == .refuse(refusal) else {
                    fatalError("a refusal is not final")
                }
                outcome.refusal = refusal
                return outcome
            }
            guard reader.head.count <= fuzzLimits.requestLineBytes + fuzzLimits.headerBytes + 4 else {
                fatalError("the head held grew past the limits: \(reader.head.count)")
            }
        }
        index = end
    }
    return outcome
}

/// A head as passed on, rewritten from `head`, read again: one whole head, framed alike, with the close
/// option when `head` had it, and nothing left over.
func checkRewritten(_ passed: [UInt8], _ head: RequestHeadReader.Head) {
    // `Connection: close` may be a byte longer than the line it replaces (`Connection:close`), or a
    // line of its own added to a head without one (an HTTP/1.0 request without `keep-alive`): one more
    // field and 19 more bytes than the limits allowed the head read.
    var limits = fuzzLimits
    limits.headerBytes += "Connection: close\r\n".utf8.count
    limits.headerCount += 1
    var again = RequestHeadReader(limits: limits)
    var offset = 0
    while offset < passed.count {
        switch again.read(passed[offset...]) {
        case .partial(let count): offset += count
        case .head(let count, let read):
            guard offset + count == passed.count, read.body == head.body,
                read.closesConnection == head.closesConnection, !read.ignoresUpgrade
            else { fatalError("a head passed on reads as another: \(passed)") }
            return
        default: fatalError("a head passed on is not a head: \(passed)")
        }
    }
    fatalError("a head passed on is not whole: \(passed)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func httpHeadFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = readAll(bytes.dropFirst(), seed: 0)
    let parts = readAll(bytes.dropFirst(), seed: bytes[0] % 64)
    guard whole == parts else { fatalError("read whole: \(whole); in parts: \(parts)") }
    return 0
}
