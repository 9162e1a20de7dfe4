import HLSPlaylist

extension PlaybackStateMachine {
    /// The primary time ranges whose segments are loaded in every rendition that plays (the variant's
    /// media playlist and the other renditions), merged and in order (AVFoundation's
    /// `loadedTimeRanges` of the primary item); empty when segments are not loaded.
    package var loadedPrimaryRanges: [Range<MediaTime>] {
        guard let timeline else { return [] }
        let loaded = timeline.renditionPlaylists.map { playlist, base in
            Self.merged(
                playlist.segments.compactMap { segment -> Range<MediaTime>? in
                    let url = tagged(URIReference.resolve(segment.uri, against: base))
                    return loads.loadedSegments.contains(url) && segment.duration > .zero
                        ? segment.startTime..<segment.endTime : nil
                })
        }
        return loaded.dropFirst().reduce(loaded[0], Self.intersected)
    }

    /// The ranges of the current interstitial asset (from its start) whose segments are loaded in
    /// every rendition that plays, as the interstitial player's item has them; empty when no asset
    /// plays.
    package var loadedAssetRanges: [Range<MediaTime>] {
        guard mode == .interstitial, let run, let media = run.currentMedia else { return [] }
        let loaded = ([media] + media.otherRenditions).map { rendition -> [Range<MediaTime>] in
            guard rendition.segmentDurations.count == rendition.segmentURLs.count else { return [] }
            var start = MediaTime.zero
            var ranges: [Range<MediaTime>] = []
            for (url, duration) in zip(rendition.segmentURLs, rendition.segmentDurations) {
                let identity = Self.segmentIdentity(tagged(url), eventID: run.eventID, assetIndex: run.assetIndex ?? 0)
                if loads.loadedSegments.contains(identity) && duration > .zero {
                    ranges.append(start..<(start + duration))
                }
                start = start + duration
            }
            return Self.merged(ranges)
        }
        return loaded.dropFirst().reduce(loaded[0], Self.intersected)
    }

    /// The parts of merged, ordered `a` that are also in merged, ordered `b`.
    package static func intersected(_ a: [Range<MediaTime>], _ b: [Range<MediaTime>]) -> [Range<MediaTime>] {
        var result: [Range<MediaTime>] = []
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            let lower = max(a[i].lowerBound, b[j].lowerBound)
            let upper = min(a[i].upperBound, b[j].upperBound)
            if lower < upper { result.append(lower..<upper) }
            if a[i].upperBound < b[j].upperBound { i += 1 } else { j += 1 }
        }
        return result
    }

    /// Ranges in order with those that touch or overlap joined.
    static func merged(_ ranges: [Range<MediaTime>]) -> [Range<MediaTime>] {
        var result: [Range<MediaTime>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// The watched times of the current asset, in its time (by time, then key); empty when no asset
    /// plays.
    var currentAssetWatches: [(key: Int, time: MediaTime)] {
        guard mode == .interstitial, let run, let media = run.currentMedia else { return [] }
        return watchedAssetTimes.flatMap { key, watch in watch.resolved(duration: media.duration).map { (key, $0) } }
            .sorted { $0.time != $1.time ? $0.time < $1.time : $0.key < $1.key }
    }
}
