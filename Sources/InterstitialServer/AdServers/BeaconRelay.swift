import Crypto
import Foundation
import HLSPlaylist
import NIOConcurrencyHelpers

/// `tracking: relay`: the tracking URLs of the asset lists point at this server, which counts every
/// beacon a player fires (`hlsi_beacons_seen_total`, by VAST event) and passes it on to the ad
/// server, once per viewer and URL, in the background (``TrackingDispatcher``).
///
/// A relay URL is `/beacon/MAC/TYPE/EXPIRES/PAYLOAD`: `EXPIRES` the time (seconds since 1970, UTC)
/// after which it is refused, ``lifetime`` after the asset list that carries it was written;
/// `PAYLOAD` the base64url of the viewer's `_HLS_primary_id`, a line feed and the ad server's URL;
/// `MAC` the first 16 bytes, in hexadecimal, of HMAC-SHA256 over type, expiry and payload. Only URLs
/// this server (or a replica) wrote verify, so the relay never requests a URL a client chose.
///
/// The key is a random secret of its own (``secretBytes``), never derived from the admin token, so a
/// relay URL reveals nothing about any other secret. Replicas share it through the store
/// (``share(through:)``: the first server stores one, the others read it); without a store that
/// keeps one it is random for each process, and the URLs of an earlier process stop verifying.
///
/// A relay URL requested again (a player's retry, a replay) is counted and passed on only the first
/// time; the server remembers the last ``memory`` beacons, and forgets them when it restarts: a URL
/// can then be passed on once more, until it expires. What a client may have passed on is bounded
/// further by the ``BeaconBudget`` of its address and viewer.
final class BeaconRelay: Sendable {
    /// The path the relay answers under.
    static let prefix = "/beacon/"
    /// The most beacons remembered as already passed on (in two generations, like the viewer ledger).
    static let memory = 100_000
    /// The longest payload accepted, in bytes of base64url.
    static let maximumPayload = 8192
    /// The size of the random secret the key is made of.
    static let secretBytes = 32

    /// A beacon a verified URL names.
    struct Beacon: Hashable, Sendable {
        /// The ad server's URL.
        var url: String
        /// The VAST event.
        var type: String
        /// The viewer's `_HLS_primary_id` when the asset list had one.
        var viewer: String?
        /// When the URL expires, in seconds since 1970.
        var expires: Int64
        /// The URL's MAC, which identifies it.
        var mac: String
    }

    /// What the relay does with a request for a beacon URL.
    enum Outcome: Hashable, Sendable {
        /// Pass it on: the first request of a valid URL within the budget.
        case relay(Beacon)
        /// A URL this server did not write (a 404).
        case unknown
        /// A URL past its expiry (a 410): not passed on.
        case expired(Beacon)
        /// Already passed on: answered, not passed on again.
        case repeated(Beacon)
        /// Over the budget of the client's address or viewer (a 429): not passed on.
        case overBudget(Beacon)
    }

    /// How long a relay URL verifies after it was written.
    let lifetime: MediaTime
    /// What each address and viewer may have passed on.
    let budget: BeaconBudget
    /// The server's clock: a URL's expiry is on its wall clock.
    private let clock: any ServerClock
    private let key: NIOLockedValueBox<SymmetricKey>
    private let passed = NIOLockedValueBox((current: Set<String>(), previous: Set<String>()))

    /// A relay keyed with `secret` (random without one), whose URLs expire `lifetime` after they
    /// are written, by the wall clock of `clock`.
    init(
        secret: [UInt8]? = nil, lifetime: MediaTime = ServerLimits().beaconLifetime,
        budget: BeaconBudget = BeaconBudget(), clock: any ServerClock
    ) {
        key = NIOLockedValueBox(secret.map { SymmetricKey(data: $0) } ?? SymmetricKey(size: .bits256))
        self.lifetime = lifetime
        self.budget = budget
        self.clock = clock
    }

    /// The wall-clock date now.
    private func now() -> DateTime { clock.wall }

    /// Keys the relay with `secret` from now on; URLs written with the earlier key stop verifying.
    func use(secret: [UInt8]) {
        key.withLockedValue { $0 = SymmetricKey(data: secret) }
    }

    /// Keys the relay with the secret `store` keeps for every server that uses it: a random one
    /// stored if it has none. A store that keeps none leaves the random key of this process.
    func share(through store: any ServerStore) async throws {
        var generator = SystemRandomNumberGenerator()
        let proposed = (0..<Self.secretBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        guard let secret = try await store.relaySecret(proposing: proposed) else { return }
        use(secret: secret)
    }

    /// The relay URL, under `base`, of the beacon `type` to `url` for `viewer`, which expires
    /// ``lifetime`` from now.
    func url(for url: String, type: String, viewer: String?, base: String) -> String {
        let payload = Self.base64url(Array(((viewer ?? "") + "\n" + url).utf8))
        let expires = String(Self.seconds(now() + lifetime))
        return base + Self.prefix + mac(type: type, expires: expires, payload: payload) + "/" + type + "/" + expires
            + "/" + payload
    }

    /// The beacon a request for `path` (under ``prefix``) names, whatever its expiry; nil when the
    /// path is not one this server wrote.
    func verify(_ path: Substring) -> Beacon? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].utf8.count == 32, parts[3].utf8.count <= Self.maximumPayload,
            !parts[1].isEmpty, parts[1].utf8.count <= 64, (1...12).contains(parts[2].utf8.count),
            parts[2].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let expires = Int64(parts[2])
        else { return nil }
        let type = String(parts[1])
        let payload = String(parts[3])
        let expected = mac(type: type, expires: String(parts[2]), payload: payload)
        // Constant time: a wrong MAC says nothing about how much of it was right.
        guard expected.utf8.count == parts[0].utf8.count,
            zip(expected.utf8, parts[0].utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0,
            let bytes = Self.decodeBase64url(payload), let newline = bytes.firstIndex(of: 0x0A)
        else { return nil }
        let viewer = String(decoding: bytes[..<newline], as: UTF8.self)
        return Beacon(
            url: String(decoding: bytes[(newline + 1)...], as: UTF8.self), type: type,
            viewer: viewer.isEmpty ? nil : viewer, expires: expires, mac: expected)
    }

    /// Whether `beacon` has expired now (a request for it is a 410).
    func isExpired(_ beacon: Beacon) -> Bool {
        Self.seconds(now()) >= beacon.expires
    }

    /// What to do with a request for `path` (under ``prefix``) from a client at `address` (the
    /// viewer's address, ``ViewerAddress``): a beacon is passed on the first time its URL is
    /// requested before it expires, within the budget of the address and the viewer.
    func receive(_ path: Substring, address: String?) -> Outcome {
        guard let beacon = verify(path) else { return .unknown }
        let time = now()
        guard !isExpired(beacon) else { return .expired(beacon) }
        let first = passed.withLockedValue { memory -> Bool in
            if memory.current.contains(beacon.mac) || memory.previous.contains(beacon.mac) { return false }
            if memory.current.count >= Self.memory / 2 {
                memory.previous = memory.current
                memory.current = []
            }
            memory.current.insert(beacon.mac)
            return true
        }
        guard first else { return .repeated(beacon) }
        guard budget.admit(address: address, viewer: beacon.viewer, at: time) else {
            // Not passed on: a retry within the budget later may pass it on.
            passed.withLockedValue { memory in
                memory.current.remove(beacon.mac)
                memory.previous.remove(beacon.mac)
            }
            return .overBudget(beacon)
        }
        return .relay(beacon)
    }

    private func mac(type: String, expires: String, payload: String) -> String {
        let message = Array((type + "\n" + expires + "\n" + payload).utf8)
        return HexDigits.lowercase(
            key.withLockedValue { HMAC<SHA256>.authenticationCode(for: message, using: $0) }.prefix(16))
    }

    /// Whole seconds since 1970 of `time` (rounded down).
    static func seconds(_ time: DateTime) -> Int64 {
        let nanoseconds = time.nanosecondsSinceEpoch
        return nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds + 1) / 1_000_000_000 - 1
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
