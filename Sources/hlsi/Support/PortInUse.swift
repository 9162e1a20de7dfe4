import Foundation
import NIOCore

/// The server could not listen because another process holds its address and port: the error
/// names them and how to choose another, instead of the socket call's raw text.
struct PortInUse: Error, CustomStringConvertible {
    /// The address the server tried to listen on.
    var host: String
    /// The port it tried.
    var port: Int

    /// The error for `error` when it is a bind that failed with EADDRINUSE; nil otherwise.
    init?(_ error: any Error, host: String, port: Int) {
        guard let io = error as? IOError, io.errnoCode == EADDRINUSE else { return nil }
        self.host = host
        self.port = port
    }

    /// What happened and what to do.
    var description: String {
        "port \(port) on \(host) is already in use (another server listens there): stop it, or choose another port with --port (--port 0 picks a free one)"
    }
}
