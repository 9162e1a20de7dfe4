/// Where a break's candidate ads come from when a player asks for its asset list.
///
/// The server waits for it at most ``ServerConfiguration/assetListDeadline``; an inventory that is
/// slower, or fails, gives that viewer an empty break (`{"ASSETS":[]}`), never a failed playlist.
/// The server's own inventory (`StoredInventory`, the admin API's `/inventory`) is known at once
/// and is not timed.
public protocol AdInventory: Sendable {
    /// The ads that may fill this break.
    func candidates(for target: Target, breakID: String) async throws -> [Ad]
}

/// The inventory stored on the server (the admin API's `/inventory`).
struct StoredInventory: AdInventory {
    let state: ServerState

    /// The stored ads, known at once.
    var ads: [Ad] { Array(state.snapshot.ads.values) }

    func candidates(for target: Target, breakID: String) async throws -> [Ad] { ads }
}
