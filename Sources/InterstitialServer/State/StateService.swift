import Logging
import ServiceLifecycle

/// The state's background work, as one of the application's services (stopped after the HTTP
/// server): it records the served values the server decides and follows a shared store's changes;
/// on a graceful shutdown it writes what is left and closes the store it opened (another server may
/// then open its database file).
struct StateService: Service {
    let state: ServerState
    let logger: Logger

    func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await state.follow(logger: logger) }
                await state.recordServed(logger: logger)
                group.cancelAll()
            }
        } onGracefulShutdown: {
            state.finishRecording()
        }
        await state.close(logger: logger)
    }
}
