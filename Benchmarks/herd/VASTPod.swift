/// The VAST 4.2 answer of the herd's ad server: an InLine pod of the demo's HLS ads that fills the
/// break's duration, each media file marked (``marker``) so that viewers can tell its ads from the
/// server's fallback fill.
enum VASTPod {
    /// The query every media file of this ad server carries: an asset with it came from the ad server.
    static let marker = "herd=1"

    /// The demo's ads (ID, seconds): the 6 s ones first, then the 4 s one for what is left.
    static let ads = [("ad1", 6), ("ad3", 6), ("ad2", 4)]

    /// The ads (ID, seconds) that fill `seconds`: 6 s ads while they fit, then 4 s ones (at least one ad).
    static func fill(_ seconds: Double) -> [(String, Int)] {
        var remaining = seconds
        var chosen: [(String, Int)] = []
        var long = 0
        while remaining >= 6 - 0.001 {
            chosen.append(ads[long % 2])
            long += 1
            remaining -= 6
        }
        while remaining >= 4 - 0.001 {
            chosen.append(ads[2])
            remaining -= 4
        }
        return chosen.isEmpty ? [ads[2]] : chosen
    }

    /// The document for a break of `seconds` whose media files are under `mediaBase` (the origin
    /// that serves the demo's `/ads/`) and whose impressions go to `origin`.
    static func document(seconds: Double, mediaBase: String, origin: String) -> String {
        var text = #"<?xml version="1.0" encoding="UTF-8"?><VAST version="4.2">"#
        for (index, (ad, length)) in fill(seconds).enumerated() {
            let id = "herd-\(index + 1)"
            text += #"<Ad id="\#(id)" sequence="\#(index + 1)"><InLine><AdSystem>herd</AdSystem>"#
            text += "<AdTitle>\(ad)</AdTitle><Impression>\(origin)/t/impression</Impression>"
            text += #"<Creatives><Creative id="c-\#(id)"><UniversalAdId idRegistry="herd">\#(ad)</UniversalAdId>"#
            text += "<Linear><Duration>00:00:0\(length)</Duration><MediaFiles>"
            text += #"<MediaFile delivery="streaming" type="application/x-mpegURL" width="320" height="180">"#
            text += "\(mediaBase)/ads/\(ad)/master.m3u8?\(marker)</MediaFile>"
            text += "</MediaFiles></Linear></Creative></Creatives></InLine></Ad>"
        }
        return text + "</VAST>"
    }
}
