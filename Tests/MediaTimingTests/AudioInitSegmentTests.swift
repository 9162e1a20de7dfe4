import Foundation
import MediaTiming
import Testing

/// The sample rate and channel count of AAC initialization segments made by ffmpeg
/// (Tests/Fixtures/audio-init): what the stitched form reads from an ad's audio rendition when its
/// playlist declares no SAMPLE-RATE or CHANNELS, or declares them wrongly (issue 45).
@Suite("AAC initialization segments: sample rate and channels")
struct AudioInitSegmentTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/audio-init")

    @Test(
        "the mp4a sample entry and its AudioSpecificConfig give the rate and channels",
        arguments: [("aac-44100-stereo.mp4", 44100, 2), ("aac-48000-mono.mp4", 48000, 1)])
    func figures(file: String, rate: Int, channels: Int) throws {
        let bytes = [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent(file)))
        let initSegment = try MediaTimingParser.parseInitSegment(bytes)
        let audio = try #require(initSegment.tracks.first { $0.kind == .audio })
        #expect(audio.sampleEntryType == "mp4a")
        #expect(audio.codec == "mp4a.40.2")
        #expect(audio.sampleRate == rate)
        #expect(audio.channelCount == channels)
    }
}
