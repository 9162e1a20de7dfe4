import HLSInterstitials
import HLSPlaylist
import NIOConcurrencyHelpers

/// The asset lists the server made from its own inventory, as the JSON it answers with.
///
/// Such a list is a pure function of its ``Key``: the break, its duration and skip control, where
/// the viewer joins it, the candidate ads and where the viewer's rotation starts over them
/// (``AdDecision/rotationStart(viewer:breakID:attempt:count:)``), and the public base of its URLs.
/// Viewers whose rotations start at the same ad get the same bytes, made once. Bounded: at most
/// ``limit`` lists (a list holds at most 50 ads); when full, it starts again empty.
final class AssetListMemo: Sendable {
    /// What an asset list made from the inventory depends on.
    struct Key: Hashable, Sendable {
        var breakID: String
        var duration: MediaTime
        var offset: MediaTime
        var skipControl: SkipControl?
        var candidates: [Ad]
        var start: Int
        var publicBase: String
    }

    /// A list's JSON and the number of its ads.
    struct List: Sendable {
        var json: [UInt8]
        var adCount: Int
    }

    private let lists = NIOLockedValueBox<[Key: List]>([:])
    /// The most lists kept.
    let limit: Int

    init(limit: Int = 1024) {
        self.limit = max(0, limit)
    }

    /// The list for `key`: kept, or made by `make` and kept.
    func list(_ key: Key, make: () -> List) -> List {
        if let kept = lists.withLockedValue({ $0[key] }) { return kept }
        let list = make()
        guard limit > 0 else { return list }
        lists.withLockedValue { lists in
            if lists.count >= limit { lists.removeAll(keepingCapacity: true) }
            lists[key] = list
        }
        return list
    }

    /// The number of lists kept.
    var count: Int { lists.withLockedValue { $0.count } }
}
