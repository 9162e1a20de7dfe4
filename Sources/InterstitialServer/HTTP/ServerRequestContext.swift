import Hummingbird
import NIOCore

/// The request context of the server's routes: Hummingbird's core context and the address of the
/// connection's peer (the viewer, or the proxy in front of the server; see ``ViewerAddress``).
struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer of the connection the request came on.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
