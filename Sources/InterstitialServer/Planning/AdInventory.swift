/// Where a break's candidate ads come from when a player asks for its asset list.
///
/// The server waits for it at most ``ServerConfiguration/assetListDeadline``; an inventory that is
/// slower, or fails, gives that viewer an empty break (`{"ASSETS":[]}`), never a failed playlist.
public protocol AdInventory: Sendable {
    /// The ads that may fill this break.
    func candidates(for target: Target, breakID: String) async throws -> [Ad]

    /// The ads that may fill this break when the inventory knows them without waiting (one held in
    /// memory); nil when it must be asked with ``candidates(for:breakID:)``.
    ///
    /// The server asks this first: a decision made at once costs no deadline timer and no task.
    func immediateCandidates(for target: Target, breakID: String) -> [Ad]?
}

extension AdInventory {
    /// None known at once: the server asks ``candidates(for:breakID:)``, within its deadline.
    public func immediateCandidates(for target: Target, breakID: String) -> [Ad]? { nil }
}

/// The inventory stored on the server (the admin API's `/inventory`).
struct StoredInventory: AdInventory {
    let state: ServerState

    func candidates(for target: Target, breakID: String) async throws -> [Ad] {
        Array(state.snapshot.ads.values)
    }

    func immediateCandidates(for target: Target, breakID: String) -> [Ad]? {
        Array(state.snapshot.ads.values)
    }
}
