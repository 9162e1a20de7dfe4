import HLSPlaylist

/// The schedule documents a player has loaded, kept once per identity (ID and resolved X-URI) across
/// reloads of a live playlist (profile R27): the first result recorded for an identity, success or
/// failure, is the one used; a document that changes on the server afterwards is not read again
/// until the tag's ID or X-URI changes.
public struct DateRangeScheduleStore: Sendable, Hashable {
    /// The recorded results, by identity.
    public private(set) var documents:
        [DateRangeSchedule.Identity: Result<DateRangeScheduleDocument, DateRangeScheduleError>]

    /// An empty store.
    public init() { documents = [:] }

    /// Whether nothing is recorded for `identity` yet: its document is to be loaded.
    public func needsLoading(_ identity: DateRangeSchedule.Identity) -> Bool { documents[identity] == nil }

    /// Records what loading `identity` gave, unless something is recorded already; true when it was.
    @discardableResult
    public mutating func record(
        _ result: Result<DateRangeScheduleDocument, DateRangeScheduleError>, for identity: DateRangeSchedule.Identity
    ) -> Bool {
        guard documents[identity] == nil else { return false }
        documents[identity] = result
        return true
    }

    /// Forgets the identities not in `identities` (schedules and preloads no longer in the playlist),
    /// so a long live stream that names new schedules keeps a bounded store.
    public mutating func retain(only identities: Set<DateRangeSchedule.Identity>) {
        documents = documents.filter { identities.contains($0.key) }
    }

    /// Resolves `playlist` against the recorded documents.
    public func resolve(
        playlist: MediaPlaylist, playlistURL: String? = nil, policy: DateRangeSchedulePolicy = .profile
    ) -> DateRangeScheduleResolution {
        DateRangeScheduleResolution.resolve(
            playlist: playlist, playlistURL: playlistURL, documents: documents, policy: policy)
    }
}
