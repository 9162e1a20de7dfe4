import HLSPlaylist
import NIOConcurrencyHelpers

/// How many beacons the relay passes on for one client address and one viewer in each minute
/// (``window``), so that one client cannot flood the ad servers, or the relay's queue, with
/// beacons it had the server sign (`beaconsPerAddress`, `beaconsPerViewer`).
///
/// Viewer IDs are free for a client to choose (it asks asset lists with as many as it likes), so the
/// address counts first: a client's beacons are counted against its address (``ViewerAddress``:
/// behind trusted proxies, from `X-Forwarded-For`), an IPv6 address by its /64 network (what one
/// subscriber usually holds), then against the viewer the URL was written for. Counts start again
/// every minute. At most ``maximumKeys`` addresses and viewers are counted in one minute; beyond
/// them a new one is refused until the minute ends (the table never grows without bound).
final class BeaconBudget: Sendable {
    /// The length of a counting window, in seconds.
    static let window: Int64 = 60
    /// The most addresses and viewers counted in one window.
    static let maximumKeys = 200_000

    /// Beacons passed on for one address in a window.
    let perAddress: Int
    /// Beacons passed on for one viewer in a window.
    let perViewer: Int
    private let counts = NIOLockedValueBox((window: Int64.min, counts: [String: Int]()))

    /// A budget of `perAddress` beacons for each address and `perViewer` for each viewer a minute.
    init(perAddress: Int = ServerLimits().beaconsPerAddress, perViewer: Int = ServerLimits().beaconsPerViewer) {
        self.perAddress = perAddress
        self.perViewer = perViewer
    }

    /// Counts one beacon of `viewer` from `address` at `time` and says whether it is within the
    /// budget; one that is not is not counted.
    func admit(address: String?, viewer: String?, at time: DateTime) -> Bool {
        let window = BeaconRelay.seconds(time) / Self.window
        var keys: [(String, Int)] = []
        if let address { keys.append(("a " + Self.network(address), perAddress)) }
        if let viewer { keys.append(("v " + viewer, perViewer)) }
        return counts.withLockedValue { state in
            if state.window != window {
                state.window = window
                state.counts.removeAll(keepingCapacity: true)
            }
            for (key, limit) in keys {
                let count = state.counts[key] ?? 0
                guard count < limit, count > 0 || state.counts.count < Self.maximumKeys else { return false }
            }
            for (key, _) in keys { state.counts[key, default: 0] += 1 }
            return true
        }
    }

    /// What an address is counted as: an IPv4 address itself, an IPv6 address its /64 network.
    static func network(_ address: String) -> String {
        guard let bytes = ViewerAddress.bytes(of: address), bytes.count == 16 else { return address }
        return ViewerAddress.canonical(Array(bytes[..<8]) + [UInt8](repeating: 0, count: 8)) + "/64"
    }
}
