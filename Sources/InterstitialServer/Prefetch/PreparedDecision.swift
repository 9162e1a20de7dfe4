import AdDecisioning
import Foundation
import HLSInterstitials
import HLSPlaylist

/// An ad decision as kept between the ad server's answer and the viewer's asset list
/// (``VASTFill/prepare(ads:conditioned:)``): the playable ads in the ad server's order, each with
/// its URI, duration and SVTA2053-2 slot. The asset list is fitted from it when the viewer asks
/// (``VASTFill/assetList(_:duration:startOffset:tracking:skipControl:podTracking:relay:stitched:)``), so
/// that an answer from a decision made ahead is the one a live decision would have given.
///
/// Encoded compactly (``encoded()``, ``init(encoded:)``) to be kept once per distinct decision
/// (``PrefetchCache``) and shared between replicas (``DecisionLedger``).
struct PreparedDecision: Hashable, Sendable {
    /// One playable ad.
    struct Entry: Hashable, Sendable {
        /// The HLS asset's URI.
        var uri: String
        /// The creative's duration.
        var duration: MediaTime
        /// Its signaling, impressions included.
        var slot: AdCreativeSignaling.Slot
        /// What the stitched form needs of it besides (its conditioning source, its `<Error>`
        /// URLs); nil when it has none.
        var stitching: StitchedAdInfo? = nil
    }

    /// The playable ads, in the ad server's order.
    var entries: [Entry] = []
    /// The ads left out for want of a playable media file, with their reports (not encoded: they
    /// are sent when the decision is made).
    var rejected: [VASTErrorReport] = []
    /// How many ads were left out because their creative is being conditioned (not encoded).
    var pending = 0

    /// The encoded decision (JSON with short keys).
    func encoded() -> [UInt8] {
        let wire = Wire(e: entries.map(Wire.Entry.init))
        return (try? Array(Self.encoder.encode(wire))) ?? []
    }

    /// A decision from ``encoded()``'s bytes; nil when they are not one.
    init?(encoded bytes: [UInt8]) {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(bytes)) else { return nil }
        entries = wire.e.map(\.entry)
    }

    /// An empty decision.
    init() {}

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The encoded form.
    private struct Wire: Codable {
        struct Tracking: Codable {
            var t: String
            var u: [String]
            var o: Int64?
        }
        struct Verification: Codable {
            var v: String?
            var r: String?
            var p: String?
        }
        struct Entry: Codable {
            var u: String
            var d: Int64
            var i: [[String]]
            var t: [Tracking]
            var v: [Verification]?
            var c: String?
            var s: Int64?
            /// ``StitchedAdInfo``: source, creative key, error URLs.
            var m: String?
            var k: String?
            var x: [String]?

            init(_ entry: PreparedDecision.Entry) {
                u = entry.uri
                d = entry.duration.nanoseconds
                i = entry.slot.identifiers.map { [$0.idRegistry, $0.value] }
                t = entry.slot.tracking.map { Tracking(t: $0.type, u: $0.urls, o: $0.offset?.nanoseconds) }
                let verifications = entry.slot.verifications.map { item in
                    Verification(v: item.vendor, r: item.javaScriptResources.first?.url, p: item.parameters)
                }
                v = verifications.isEmpty ? nil : verifications
                c = entry.slot.clickThrough
                s = entry.slot.skipOffset?.nanoseconds
                m = entry.stitching?.source
                k = entry.stitching?.creativeKey
                x = entry.stitching.flatMap { $0.errorURLs.isEmpty ? nil : $0.errorURLs }
            }

            var entry: PreparedDecision.Entry {
                let slot = AdCreativeSignaling.Slot(
                    start: .zero, duration: MediaTime(nanoseconds: d),
                    identifiers: i.compactMap { pair in
                        pair.count == 2 ? VASTUniversalAdId(value: pair[1], idRegistry: pair[0]) : nil
                    },
                    tracking: t.map {
                        AdCreativeSignaling.Tracking(
                            type: $0.t, urls: $0.u, offset: $0.o.map(MediaTime.init(nanoseconds:)))
                    },
                    verifications: (v ?? []).map { item in
                        var verification = VASTVerification(vendor: item.v)
                        verification.javaScriptResources = item.r.map { [VASTResourceURL(url: $0)] } ?? []
                        verification.parameters = item.p
                        return verification
                    },
                    clickThrough: c, skipOffset: s.map(MediaTime.init(nanoseconds:)))
                let stitching = StitchedAdInfo(source: m, creativeKey: k, errorURLs: x ?? [])
                return PreparedDecision.Entry(
                    uri: u, duration: MediaTime(nanoseconds: d), slot: slot,
                    stitching: stitching.isEmpty ? nil : stitching)
            }
        }
        var e: [Entry]
    }
}
