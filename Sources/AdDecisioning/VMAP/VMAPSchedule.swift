import HLSPlaylist

/// A VMAP break placed on an asset of known duration.
public struct PlacedBreak: Hashable, Sendable {
    /// Where in the asset.
    public enum Position: Hashable, Sendable {
        /// Before the content (`timeOffset="start"` or a time of 0).
        case pre
        /// At a time inside the content.
        case mid(MediaTime)
        /// After the content (`timeOffset="end"`, 100 %, or a time at the end).
        case post
    }

    /// The position.
    public var position: Position
    /// The break as the VMAP gave it.
    public var adBreak: VMAPAdBreak
    /// A stable ID: the `breakId`, else `vmap-N` for the N-th break of the document, with `-rK`
    /// for the K-th repetition of a `repeatAfter` break.
    public var id: String

    /// The time in the asset (0 for a pre-roll, the duration for a post-roll).
    public func time(duration: MediaTime) -> MediaTime {
        switch position {
        case .pre: .zero
        case .mid(let time): time
        case .post: duration
        }
    }
}

extension VMAPDocument {
    /// The linear breaks of this VMAP placed on an asset of `duration`: pre-rolls, mid-rolls by time,
    /// percentage or `#m` (the m-th of `cuePoints`), and post-rolls, in time order.
    ///
    /// Breaks past the end, `#m` without an m-th cue point and non-linear breaks are left out;
    /// `repeatAfter` (VMAP 1.0 §2.4: "repeat the ad break every N seconds") repeats a break until the
    /// end, at most `maximumRepeats` times. At most `maximumBreaks` are kept, the earliest (see
    /// ``placement(duration:cuePoints:maximumRepeats:maximumBreaks:)`` for how many were left out).
    public func placedBreaks(
        duration: MediaTime, cuePoints: [MediaTime] = [], maximumRepeats: Int = 100,
        maximumBreaks: Int = VMAPPlacement.defaultMaximumBreaks
    ) -> [PlacedBreak] {
        placement(
            duration: duration, cuePoints: cuePoints, maximumRepeats: maximumRepeats, maximumBreaks: maximumBreaks
        ).breaks
    }

    /// The breaks ``placedBreaks(duration:cuePoints:maximumRepeats:maximumBreaks:)`` gives, and how
    /// many more this VMAP would place on the asset past `maximumBreaks` (repetitions included): a
    /// VMAP of 100 breaks that each repeat every second would otherwise place thousands.
    public func placement(
        duration: MediaTime, cuePoints: [MediaTime] = [], maximumRepeats: Int = 100,
        maximumBreaks: Int = VMAPPlacement.defaultMaximumBreaks
    ) -> VMAPPlacement {
        var placed: [(PlacedBreak, Int)] = []
        for (index, adBreak) in breaks.enumerated() where adBreak.isLinear {
            let baseID = adBreak.breakId ?? "vmap-\(index + 1)"
            let time: MediaTime?
            switch adBreak.timeOffset {
            case .start: time = .zero
            case .end: time = duration
            case .time(let value): time = value
            case .percent(let percent): time = VASTOffset.percent(percent).time(duration: duration)
            case .position(let position): time = position <= cuePoints.count ? cuePoints[position - 1] : nil
            }
            guard let time, time <= duration else { continue }
            func position(_ time: MediaTime) -> PlacedBreak.Position {
                if adBreak.timeOffset == .end || time >= duration { return .post }
                if time <= .zero { return .pre }
                return .mid(time)
            }
            placed.append((PlacedBreak(position: position(time), adBreak: adBreak, id: baseID), placed.count))
            if let repeatAfter = adBreak.repeatAfter, adBreak.timeOffset != .end {
                var next = time + repeatAfter
                var count = 1
                while next < duration, count <= maximumRepeats {
                    placed.append(
                        (PlacedBreak(position: .mid(next), adBreak: adBreak, id: "\(baseID)-r\(count)"), placed.count))
                    next = next + repeatAfter
                    count += 1
                }
            }
        }
        func rank(_ position: PlacedBreak.Position) -> (Int, MediaTime) {
            switch position {
            case .pre: (0, .zero)
            case .mid(let time): (1, time)
            case .post: (2, .zero)
            }
        }
        let sorted = placed.sorted { lhs, rhs in
            let (left, right) = (rank(lhs.0.position), rank(rhs.0.position))
            return left.0 != right.0 ? left.0 < right.0 : left.1 != right.1 ? left.1 < right.1 : lhs.1 < rhs.1
        }.map(\.0)
        let kept = max(0, maximumBreaks)
        return VMAPPlacement(breaks: Array(sorted.prefix(kept)), dropped: max(0, sorted.count - kept))
    }
}
