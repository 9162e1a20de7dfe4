import PlaybackEngine
import ServiceLifecycle

extension Player: Service {
    /// Runs the player for as long as the application needs it: started once, it plays what is
    /// asked for (as `AVPlayer` plays without being pumped), waits when playback ends or pauses, and
    /// goes on when a command arrives (a seek back after the end, a play after a pause). It returns
    /// when its task is cancelled, after ``shutdown()``.
    ///
    /// The player is a swift-service-lifecycle `Service`: an application adds it to a `ServiceGroup`,
    /// whose graceful shutdown (or the task's cancellation) ends it. Tests drive playback with
    /// ``run(until:)`` instead.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var wakes = self.wake.makeAsyncIterator()
            while !Task.isCancelled {
                await self.run(until: nil)
                if Task.isCancelled { break }
                // Nothing can happen until a command arrives (or, on a real clock, playback ended).
                guard await wakes.next() != nil else { break }
            }
        }
        await shutdown()
    }
}
