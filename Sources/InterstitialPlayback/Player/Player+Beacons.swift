import AdDecisioning
import Foundation
import HLSLoading
import HLSPlaylist
import PlaybackEngine

extension Player {
    /// The beacons to send now, counted in flight; those over
    /// ``Configuration/maximumBeaconsInFlight`` are not sent and are reported so.
    func takeBeacons() -> [TrackingBeacon] {
        let most = max(1, configuration.maximumBeaconsInFlight)
        let sends = configuration.sendsBeacons
        let (taken, dropped) = state.withLockedValue { state in
            defer { state.pendingBeacons = [] }
            guard sends else { return ([TrackingBeacon](), [TrackingBeacon]()) }
            let room = max(0, most - state.beaconsInFlight)
            let taken = Array(state.pendingBeacons.prefix(room))
            state.beaconsInFlight += taken.count
            return (taken, Array(state.pendingBeacons.dropFirst(room)))
        }
        for beacon in dropped {
            report(
                beacon, url: beacon.url,
                outcome: [("status", .null), ("error", .string("not sent: \(most) beacons already in flight"))])
        }
        return taken
    }

    /// The number of beacons sent and not yet answered.
    var beaconsInFlight: Int { state.withLockedValue { $0.beaconsInFlight } }

    /// Sends one beacon (its macros filled), within ``Configuration/beaconTimeout`` (waited for with
    /// ``Configuration/timeLimitSleep``), and reports the answer in the trace as `beaconSent`.
    func send(_ beacon: TrackingBeacon) async {
        let url = Self.filled(beacon)
        let sender: any BeaconSender = configuration.beaconSender ?? HTTPBeaconSender(loader: loader.loader)
        let outcome: [(name: String, value: PlaybackEvent.Value)]
        do {
            let status = try await withTimeLimit(configuration.beaconTimeout, sleep: configuration.timeLimitSleep) {
                try await sender.sendBeacon(to: url)
            }
            outcome = [("status", status.map { .integer($0) } ?? .string("2xx"))]
        } catch let error as LoadError {
            outcome = [
                ("status", error.httpStatus.map { .integer($0) } ?? .null),
                ("error", .string("[\(error.code.rawValue)] \(error.message)")),
            ]
        } catch {
            outcome = [("status", .null), ("error", .string("\(error)"))]
        }
        state.withLockedValue { $0.beaconsInFlight -= 1 }
        report(beacon, url: url, outcome: outcome)
        wakeContinuation.yield()
    }

    /// Records a `beaconSent` line: the event, asset, type, URL, when it fell due and the outcome.
    func report(_ beacon: TrackingBeacon, url: String, outcome: [(name: String, value: PlaybackEvent.Value)]) {
        var fields: [(name: String, value: PlaybackEvent.Value)] = [("id", .string(beacon.eventID))]
        if let index = beacon.assetIndex { fields.append(("index", .integer(index))) }
        fields += [
            ("type", .string(beacon.type)), ("url", .string(url)),
            ("dueAt", .time(PlaybackEvent.seconds(of: beacon.time))),
        ]
        fields += outcome
        let now = clock.now()
        state.withLockedValue { state in
            let event = PlaybackEvent(
                time: now, kind: .beaconSent, primaryTime: state.machine.timeline == nil ? nil : state.machine.position,
                fields: fields)
            state.trace.append(event)
            if state.trace.count > state.traceLimit { state.trace.removeFirst(state.trace.count - state.traceLimit) }
            for continuation in state.traceSubscribers.values { continuation.yield(event) }
        }
    }

    /// The beacon's URL with the VAST macros a player knows filled (VAST 4.3 §6.1): the ad and
    /// media playheads, a cache buster and the time; others are left as the rules of
    /// ``VASTMacros`` say.
    static func filled(_ beacon: TrackingBeacon) -> String {
        guard beacon.url.contains("[") else { return beacon.url }
        var generator = SystemRandomNumberGenerator()
        var values = VASTMacroValues(
            cacheBusting: VASTMacroValues.cacheBuster(&generator), timestamp: DateTime(Date()))
        values.adPlayhead = beacon.adPlayhead
        values.mediaPlayhead = beacon.mediaPlayhead
        values.serverSide = 0
        return VASTMacros.fill(beacon.url, with: values)
    }
}
