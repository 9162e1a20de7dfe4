import HLSInterstitials
import HLSPlaylist
import Logging
import ServiceLifecycle

/// Removes the early notices of live breaks as they expire (``NoticeBoard/expire(at:)``), every
/// ``interval`` of the server's clock, and counts them in `hlsi_break_notices_total` (`matched` or `unmatched`): one of
/// the application's services. Each replica does it; a notice is counted by the replica whose
/// transaction removed it.
struct NoticeExpiry: Service {
    let board: NoticeBoard
    let metrics: ServerMetrics
    let logger: Logger
    /// The server's clock: the wall time notices expire at, and the pause between sweeps.
    let clock: any ServerClock
    /// How often expired notices are looked for.
    var interval = MediaTime(seconds: 1)

    /// Runs until cancelled or a graceful shutdown.
    func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Removes the notices expired now and counts them.
    func sweep() async {
        do {
            let counts = try await board.expire(at: clock.wall)
            for _ in 0..<counts.matched { metrics.notice(outcome: "matched") }
            for _ in 0..<counts.unmatched { metrics.notice(outcome: "unmatched") }
            if counts.unmatched > 0 {
                logger.info("\(counts.unmatched) early notices of breaks expired with no signalled break to take them")
            }
        } catch {
            logger.warning("cannot remove the expired early notices of breaks: \(error)")
        }
    }
}
