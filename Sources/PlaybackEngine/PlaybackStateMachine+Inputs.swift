import HLSInterstitials
import HLSPlaylist
import PlaybackCoordination

extension PlaybackStateMachine {
    /// Takes `input` in the current state. Each state says, input by input, what it takes and what
    /// it cannot: an input it cannot take is not applied, and a trace warning says why
    /// (``ignore(_:in:because:)``). A command a state takes may still be refused by its own rule
    /// (a ``Refusal``, e.g. a seek before the primary loads or a skip with no interstitial playing).
    mutating func dispatch(_ input: Input) -> Refusal? {
        switch state {
        case .loading: whileLoading(input)
        case .ended where timeline == nil: endedBeforeLoading(input)
        case .primary, .interstitial, .ended: whileLoaded(input)
        case .handedOff(let target): afterHandOff(input, to: target)
        }
    }

    /// Waiting for the primary: only the primary is loading, so no other load's result can come;
    /// a placement or a handed-off session waits for the primary.
    private mutating func whileLoading(_ input: Input) -> Refusal? {
        switch input {
        case .command(let command): return self.command(command)
        case .primaryLoaded(let presentation): primaryLoaded(presentation)
        case .loadFailed(.primary, let message): loadFailed(.primary, message)
        case .assetListLoaded, .assetLoaded, .segmentLoaded, .variantLoaded, .scheduleLoaded, .loadFailed:
            ignoreResult(input, because: "only the primary loads before it is loaded")
        case .throughputMeasured(let bytes, let duration): selection.measured(bytes: bytes, duration: duration)
        case .loadCancelled(let key): loads.cancelled(key)
        case .setCoordinated(let on): coordinator.join(on)
        case .coordinate(let location, let playing, let rate, let anchor):
            coordinate(location, playing: playing, rate: rate, anchor: anchor, continuing: false)
        case .restore(let session): restore(session)
        case .handedOff(let target): handOff(to: target)
        }
        return nil
    }

    /// The primary loaded: in primary, in an interstitial group, or ended after it loaded (at its
    /// end, after the POST group or a hand-off), where the loads that were in flight still land
    /// since a seek or a placement starts playback again (``Cause/restarted``). Everything is
    /// taken but a handed-off session, which is continued only before the primary loads.
    private mutating func whileLoaded(_ input: Input) -> Refusal? {
        switch input {
        case .command(let command): return self.command(command)
        case .primaryLoaded(let presentation): primaryLoaded(presentation)
        case .assetListLoaded(let id, let list): assetListLoaded(id, list)
        case .assetLoaded(let id, let index, let media): assetLoaded(id, index, media)
        case .segmentLoaded(let identity): loads.segmentLoaded(identity)
        case .variantLoaded(let index, let presentation): variantLoaded(index, presentation)
        case .scheduleLoaded(let identity, let result): scheduleLoaded(identity, result)
        case .loadFailed(let key, let message): loadFailed(key, message)
        case .throughputMeasured(let bytes, let duration): selection.measured(bytes: bytes, duration: duration)
        case .loadCancelled(let key): loads.cancelled(key)
        case .setCoordinated(let on): coordinator.join(on)
        case .coordinate(let location, let playing, let rate, let anchor):
            coordinate(location, playing: playing, rate: rate, anchor: anchor, continuing: false)
        case .restore:
            ignore(input.name, in: mode, because: "a handed-off session is continued before the primary loads")
        case .handedOff(let target): handOff(to: target)
        }
        return nil
    }

    /// Ended because the primary could not be loaded: nothing plays again, so no load's result and
    /// no placement is taken; commands meet their own rules (a seek is refused: the primary is not
    /// loaded).
    private mutating func endedBeforeLoading(_ input: Input) -> Refusal? {
        let why = "playback ended before the primary loaded"
        switch input {
        case .command(let command): return self.command(command)
        case .primaryLoaded, .assetListLoaded, .assetLoaded, .segmentLoaded, .variantLoaded, .scheduleLoaded,
            .loadFailed:
            ignoreResult(input, because: why)
        case .coordinate, .restore: ignore(input.name, in: mode, because: why)
        case .throughputMeasured(let bytes, let duration): selection.measured(bytes: bytes, duration: duration)
        case .loadCancelled(let key): loads.cancelled(key)
        case .setCoordinated(let on): coordinator.join(on)
        case .handedOff(let target): handOff(to: target)
        }
        return nil
    }

    /// Handed off to the player `target`: the session is that player's now, so this one takes no
    /// command, placement or load result (a trace warning for each); it may still leave its group,
    /// measure a load or be told a load was abandoned, and a second hand-off is traced.
    private mutating func afterHandOff(_ input: Input, to target: String) -> Refusal? {
        let why = "the session was handed off to \(target)"
        switch input {
        case .command, .coordinate, .restore: ignore(input.name, in: mode, because: why)
        case .primaryLoaded, .assetListLoaded, .assetLoaded, .segmentLoaded, .variantLoaded, .scheduleLoaded,
            .loadFailed:
            ignoreResult(input, because: why)
        case .throughputMeasured(let bytes, let duration): selection.measured(bytes: bytes, duration: duration)
        case .loadCancelled(let key): loads.cancelled(key)
        case .setCoordinated(let on): coordinator.join(on)
        case .handedOff(let target): handOff(to: target)
        }
        return nil
    }

    /// Applies a command; a timing command applied while following a group is the group's to
    /// share (``CoordinationMachine``).
    private mutating func command(_ command: PlaybackCommand) -> Refusal? {
        let following = coordination == .following
        let refusal = apply(command)
        if following, refusal == nil, command.isTiming { coordinator.commandApplied() }
        return refusal
    }

    /// The session went to the player `target`: this one stops (from any state).
    private mutating func handOff(to target: String) {
        playhead.pause()
        transition(to: .handedOff(to: target), because: .handedOff)
        emit(.handedOff, [("to", .string(target))])
    }

    /// A load's result (or failure) that the state cannot take: the load is no longer in flight,
    /// and a trace warning says why its result was not used.
    private mutating func ignoreResult(_ input: Input, because why: String) {
        if let key = input.loadKey { loads.finished(key) }
        ignore(input.name, in: mode, because: why)
    }
}

extension PlaybackStateMachine.Input {
    /// The input's name, as a trace warning gives it.
    var name: String {
        switch self {
        case .command(let command): "command \"\(command)\""
        case .primaryLoaded: "primaryLoaded"
        case .assetListLoaded: "assetListLoaded"
        case .assetLoaded: "assetLoaded"
        case .segmentLoaded: "segmentLoaded"
        case .throughputMeasured: "throughputMeasured"
        case .variantLoaded: "variantLoaded"
        case .scheduleLoaded: "scheduleLoaded"
        case .loadFailed: "loadFailed"
        case .loadCancelled: "loadCancelled"
        case .setCoordinated: "setCoordinated"
        case .coordinate: "coordinate"
        case .restore: "restore"
        case .handedOff: "handedOff"
        }
    }

    /// The load whose result (or failure) this is; nil for the other inputs.
    var loadKey: PlaybackStateMachine.LoadKey? {
        switch self {
        case .primaryLoaded: .primary
        case .variantLoaded(let index, _): .variant(index)
        case .assetListLoaded(let id, _): .assetList(id)
        case .assetLoaded(let id, let index, _): .asset(id, index)
        case .segmentLoaded(let identity): .segment(identity)
        case .scheduleLoaded(let identity, _): .schedule(identity)
        case .loadFailed(let key, _): key
        case .command, .throughputMeasured, .loadCancelled, .setCoordinated, .coordinate, .restore, .handedOff:
            nil
        }
    }
}
