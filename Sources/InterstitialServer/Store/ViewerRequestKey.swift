/// A viewer's requests for one break of one target, as a store counts them
/// (``ServerStore/countViewerRequests(_:expiry:)``).
public struct ViewerRequestKey: Hashable, Sendable {
    /// The viewer (its session).
    public var viewer: String
    /// The target.
    public var target: Target
    /// The break's ID.
    public var id: String

    /// A key.
    public init(viewer: String, target: Target, id: String) {
        self.viewer = viewer
        self.target = target
        self.id = id
    }
}
