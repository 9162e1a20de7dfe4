/// Follows the frames of an elementary audio stream that arrives in pieces (PES payloads split
/// over transport packets): counts frames and samples, and resynchronises on bytes that are not a
/// frame header. Holds at most one header's bytes between pieces.
struct AudioFrameWalker {
    /// The framing the stream type promises; nil accepts any.
    let framing: AudioFrameHeader.Framing?
    /// The first frame's header.
    private(set) var first: AudioFrameHeader?
    /// Frames seen.
    private(set) var frames: Int64 = 0
    /// Samples of the frames seen.
    private(set) var samples: Int64 = 0
    /// Bytes skipped while looking for a header.
    private(set) var skipped: Int64 = 0
    /// Frame bytes still to come of the current frame.
    private(set) var remainingInFrame = 0
    private var pending: [UInt8] = []

    init(framing: AudioFrameHeader.Framing?) { self.framing = framing }

    /// Feeds `bytes[range]`.
    mutating func feed(_ bytes: [UInt8], _ range: Range<Int>) {
        var position = range.lowerBound
        while position < range.upperBound {
            if remainingInFrame > 0 {
                let step = min(remainingInFrame, range.upperBound - position)
                remainingInFrame -= step
                position += step
                continue
            }
            let step = min(AudioFrameHeader.maximumHeaderSize - pending.count, range.upperBound - position)
            pending.append(contentsOf: bytes[position..<(position + step)])
            position += step
            guard pending.count == AudioFrameHeader.maximumHeaderSize else { continue }
            scanPending()
        }
    }

    /// Looks for a header in the pending bytes, dropping one byte at a time when there is none.
    private mutating func scanPending() {
        while pending.count == AudioFrameHeader.maximumHeaderSize {
            if let header = AudioFrameHeader.parse(pending, at: 0, framing: framing ?? first?.framing) {
                if first == nil { first = header }
                frames += 1
                samples += Int64(header.samples)
                remainingInFrame = header.length - pending.count
                pending.removeAll(keepingCapacity: true)
                if remainingInFrame < 0 {
                    // A frame shorter than the header bytes read: give the extra bytes back.
                    remainingInFrame = 0
                }
                return
            }
            pending.removeFirst()
            skipped += 1
        }
    }

    /// Whether the stream ended inside a frame.
    var endsInsideFrame: Bool { remainingInFrame > 0 || !pending.isEmpty && frames > 0 }
}
