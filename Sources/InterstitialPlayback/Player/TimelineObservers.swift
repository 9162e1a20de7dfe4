import HLSInterstitials
import HLSPlaylist
import PlaybackEngine

/// The integrated timeline's observers and out-of-sync subscribers, checked after every step of the
/// machine (reference §2.5).
struct TimelineObservers: Sendable {
    struct Periodic: Sendable {
        var interval: MediaTime
        var next: MediaTime?
        var lastTime: MediaTime?
        var lastSegment: Int?
        var lastMoving = false
        var block: @Sendable (MediaTime) -> Void
    }

    struct Boundary: Sendable {
        var segment: IntegratedTimelineSnapshot.Segment
        var offsets: [MediaTime]
        var lastTime: MediaTime?
        var block: @Sendable (Bool) -> Void
    }

    var periodic: [Int: Periodic] = [:]
    var boundary: [Int: Boundary] = [:]
    var outOfSync: [Int: AsyncStream<IntegratedTimelineSnapshot.Change>.Continuation] = [:]
    var lastSnapshot: IntegratedTimelineSnapshot?
    var nextID = 0
    /// Integrated times the machine must stop at, so a virtual clock does not jump past them.
    var watchedTimes: [MediaTime] = []

    var isEmpty: Bool { periodic.isEmpty && boundary.isEmpty && outOfSync.isEmpty }

    /// Whether two segments are the same segment of the timeline (as the timeline changes).
    static func same(_ a: IntegratedTimelineSnapshot.Segment, _ b: IntegratedTimelineSnapshot.Segment) -> Bool {
        a.segmentType == b.segmentType && a.interstitialEvent?.identifier == b.interstitialEvent?.identifier
            && a.timeMapping.source.lowerBound == b.timeMapping.source.lowerBound
    }

    /// Fires what is due, queueing the blocks in `callbacks` (called outside the lock).
    mutating func update(machine: PlaybackStateMachine, callbacks: inout [@Sendable () -> Void]) {
        guard !isEmpty, let snapshot = machine.snapshot else {
            watchedTimes = []
            return
        }
        if let last = lastSnapshot, let change = last.change(to: snapshot) {
            for continuation in outOfSync.values { continuation.yield(change) }
        }
        lastSnapshot = snapshot
        let now = snapshot.currentTime
        let moving = machine.effectiveRate > 0
        var watched: [MediaTime] = []
        for (id, var observer) in periodic {
            let jumped = observer.lastTime.map { now < $0 } ?? true
            if jumped || observer.next.map({ now >= $0 }) ?? true
                || observer.lastSegment != snapshot.currentSegmentIndex
                || observer.lastMoving != moving
            {
                let block = observer.block
                callbacks.append { block(now) }
                let steps = observer.interval.nanoseconds > 0 ? now.nanoseconds / observer.interval.nanoseconds + 1 : 1
                observer.next = MediaTime(nanoseconds: steps * observer.interval.nanoseconds)
            }
            observer.lastTime = now
            observer.lastSegment = snapshot.currentSegmentIndex
            observer.lastMoving = moving
            if let next = observer.next { watched.append(next) }
            periodic[id] = observer
        }
        for (id, var observer) in boundary {
            guard let segment = snapshot.segments.first(where: { Self.same($0, observer.segment) }) else {
                let block = observer.block
                callbacks.append { block(false) }
                boundary.removeValue(forKey: id)
                continue
            }
            let times = observer.offsets.map { segment.timeMapping.target.lowerBound + $0 }
            if let last = observer.lastTime {
                for time in times where last < time && time <= now {
                    let block = observer.block
                    callbacks.append { block(true) }
                }
            }
            observer.lastTime = now
            watched += times.filter { $0 > now }
            boundary[id] = observer
        }
        watchedTimes = watched
    }
}
