import Crypto
import Foundation
import NIOConcurrencyHelpers

/// `tracking: relay`: the tracking URLs of the asset lists point at this server, which counts every
/// beacon a player fires (`hlsi_beacons_seen_total`, by VAST event) and passes it on to the ad
/// server, once per viewer and URL, in the background (``TrackingDispatcher``).
///
/// A relay URL is `/beacon/MAC/TYPE/PAYLOAD`: `PAYLOAD` is the base64url of the viewer's
/// `_HLS_primary_id`, a line feed and the ad server's URL; `MAC` the first 16 bytes, in hexadecimal,
/// of HMAC-SHA256 over type, viewer and URL. Only URLs this server wrote into an asset list verify,
/// so the relay never requests a URL a client chose. The key comes from the admin token (so that the
/// replicas of one deployment verify each other's URLs), or is random for a server without one.
/// A relay URL requested again (a player's retry, a replay) is counted and passed on only the first
/// time; the server remembers the last ``memory`` beacons.
final class BeaconRelay: Sendable {
    /// The path the relay answers under.
    static let prefix = "/beacon/"
    /// The most beacons remembered as already passed on (in two generations, like the viewer ledger).
    static let memory = 100_000
    /// The longest payload accepted, in bytes of base64url.
    static let maximumPayload = 8192

    private let key: SymmetricKey
    private let passed = NIOLockedValueBox((current: Set<String>(), previous: Set<String>()))

    /// A relay whose key derives from `secret` (the admin token), or is random without one.
    init(secret: String?) {
        if let secret, !secret.isEmpty {
            key = SymmetricKey(data: SHA256.hash(data: Array(("hlsi beacon relay\n" + secret).utf8)))
        } else {
            key = SymmetricKey(size: .bits256)
        }
    }

    /// The relay URL, under `base`, of the beacon `type` to `url` for `viewer`.
    func url(for url: String, type: String, viewer: String?, base: String) -> String {
        let payload = Self.base64url(Array(((viewer ?? "") + "\n" + url).utf8))
        return base + Self.prefix + mac(type: type, payload: payload) + "/" + type + "/" + payload
    }

    /// What a request for `path` (under ``prefix``) relays: the ad server's URL and the event type, and
    /// whether this is the first time (nil when the path is not one this server wrote).
    /// With `record` false (a `HEAD`), the URL is only checked: `first` is false and nothing is remembered.
    func verify(_ path: Substring, record: Bool = true) -> (url: String, type: String, first: Bool)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 32, parts[2].utf8.count <= Self.maximumPayload,
            !parts[1].isEmpty, parts[1].utf8.count <= 64
        else { return nil }
        let type = String(parts[1])
        let payload = String(parts[2])
        let expected = mac(type: type, payload: payload)
        // Constant time: a wrong MAC says nothing about how much of it was right.
        guard expected.utf8.count == parts[0].utf8.count,
            zip(expected.utf8, parts[0].utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0,
            let bytes = Self.decodeBase64url(payload), let newline = bytes.firstIndex(of: 0x0A)
        else { return nil }
        let url = String(decoding: bytes[(newline + 1)...], as: UTF8.self)
        guard record else { return (url, type, false) }
        let first = passed.withLockedValue { memory -> Bool in
            if memory.current.contains(expected) || memory.previous.contains(expected) { return false }
            if memory.current.count >= Self.memory / 2 {
                memory.previous = memory.current
                memory.current = []
            }
            memory.current.insert(expected)
            return true
        }
        return (url, type, first)
    }

    private func mac(type: String, payload: String) -> String {
        HexDigits.lowercase(
            HMAC<SHA256>.authenticationCode(for: Array((type + "\n" + payload).utf8), using: key).prefix(16))
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64url(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { Array($0) }
    }
}
