import HLSPlaylist

extension PlaybackStateMachine {
    /// The URL of the selected audio rendition's playlist when the primary's variant has one: a
    /// live reload loads it too, for X-SNAP (R6).
    package var audioRenditionURL: String? {
        guard let index = variantIndex, variants.indices.contains(index) else { return nil }
        let variant = variants[index]
        guard let uri = variant.matching(tracks).audio?.uri else { return nil }
        return tagged(URIReference.resolve(uri, against: variant.base))
    }

    /// The variant the policy chooses now among those that did not fail (``VariantPolicy``).
    var wantedVariant: Int? { selection.wanted }

    /// The load of the wanted variant's playlist, when it is not the one playing: it comes before
    /// any segment, so that what buffers from then on is the new variant's.
    func variantStep() -> BufferStep? {
        guard timeline != nil, mode == .primary || mode == .interstitial, let wanted = wantedVariant,
            wanted != variantIndex, !loads.inFlight.contains(.variant(wanted))
        else { return nil }
        return .now(.variant(wanted), variants[wanted].url)
    }

    /// Switches to a loaded variant: VOD replaces the playlist (keeping what is buffered), live
    /// continues the timeline from it (a reload from the new URL); the renditions are the new
    /// variant's, matched to the tracks.
    mutating func variantLoaded(_ index: Int, _ presentation: PrimaryPresentation) {
        loads.finished(.variant(index))
        guard var timeline, variants.indices.contains(index) else {
            ignore("variantLoaded", in: mode, because: "the primary offers no variant \(index)")
            return
        }
        let from = selection.switched(to: index, presentation)
        if timeline.isLive {
            let reloading = loads.inFlight.contains(.primary)
            primaryLoaded(presentation)
            if reloading { loads.started(.primary) }
        } else {
            // What is buffered stays: the new variant's segments for times already loaded count as
            // loaded, so the switch takes effect where the buffer ends.
            let buffered = Set(
                timeline.playlist.segments.filter {
                    loads.loadedSegments.contains(tagged(URIReference.resolve($0.uri, against: timeline.url)))
                }.map(\.startTime))
            timeline.replaceVariant(with: presentation)
            for segment in timeline.playlist.segments where buffered.contains(segment.startTime) {
                loads.buffered(tagged(URIReference.resolve(segment.uri, against: timeline.url)))
            }
            program.revise(timeline)
            recompute()
        }
        var fields: [(name: String, value: PlaybackEvent.Value)] = [
            ("from", from.map { .integer($0) } ?? .null), ("to", .integer(index)),
            ("bandwidth", variants[index].bandwidth.map { .integer($0) } ?? .null),
            ("throughput", throughput.bitsPerSecond.map { .integer(Int($0.rounded())) } ?? .null),
        ]
        if !presentation.renditions.isEmpty {
            fields.append(("audio", tracks.audio.map { .string($0.description) } ?? .null))
        }
        emit(.variantSwitched, fields)
    }
}
