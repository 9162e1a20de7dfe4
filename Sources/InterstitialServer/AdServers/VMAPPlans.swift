import AdDecisioning
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The ad breaks a VMAP (IAB VMAP 1.0) places on VOD assets: fetched once per asset and VMAP
/// template, kept for the life of the process (a VOD playlist must not change once served), each
/// break's ad source kept for its asset list, which asks for the ads late.
///
/// VMAP gives positions (pre-roll, mid-rolls by time, percentage or position, post-roll), not
/// lengths: each break is planned ``AdServerSettings/vmapBreakDuration`` long and filled up to it.
/// A VMAP that cannot be fetched or read leaves the asset without VMAP breaks; it is tried again 30 s
/// later at the earliest, so a failing VMAP server is not asked on every request.
final class VMAPPlans: Sendable {
    /// The breaks of one asset.
    struct Plan: Sendable {
        /// The breaks, in time order.
        var breaks: [Break]
        /// Each break's ad source, by break ID.
        var sources: [String: VMAPAdSource]
        /// Each break's own tracking (`breakStart`, `breakEnd`, `error`), by break ID: the pod-level
        /// tracking of its asset lists.
        var tracking: [String: [AdCreativeSignaling.Tracking]] = [:]
        /// What was left out over a limit, each naming the VMAP: logged as warnings when it loads.
        var warnings: [String] = []
    }

    private struct Key: Hashable {
        var content: String
        var template: String
    }

    private enum Entry {
        case loaded(Plan)
        case failed(MediaTime)
    }

    /// How long a failed VMAP is not asked for again.
    static let retryDelay = MediaTime(seconds: 30)

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])
    let fetcher: AdServerFetcher
    private let logger: Logger
    private let reader = VASTReader()

    /// Plans fetched with `fetcher`, on its clock (the server's: when a failure may be retried, and
    /// the ad tag's `[TIMESTAMP]`).
    init(fetcher: AdServerFetcher, logger: Logger) {
        self.fetcher = fetcher
        self.logger = logger
    }

    /// The server's clock, the fetcher's.
    var clock: any ServerClock { fetcher.clock }

    /// The plan of `content` for `settings`, when it was loaded.
    func plan(content: String, settings: AdServerSettings) -> Plan? {
        guard let template = settings.vmap?.template else { return nil }
        guard case .loaded(let plan)? = entries.withLockedValue({ $0[Key(content: content, template: template)] })
        else { return nil }
        return plan
    }

    /// Whether the plan of `content` is settled: loaded, or not asked for (no VMAP).
    func isSettled(content: String, settings: AdServerSettings?) -> Bool {
        guard let settings, settings.vmap != nil else { return true }
        return plan(content: content, settings: settings) != nil
    }

    /// Loads the plan of `content` (a VOD asset of `duration`) unless it is loaded or failed
    /// less than ``retryDelay`` ago, within `deadline`.
    func load(
        content: String, target: Target, settings: AdServerSettings, duration: MediaTime, deadline: MediaTime
    ) async {
        guard let template = settings.vmap else { return }
        let key = Key(content: content, template: template.template)
        let now = clock.now
        switch entries.withLockedValue({ $0[key] }) {
        case .loaded?: return
        case .failed(let at)? where now - at < Self.retryDelay: return
        default: break
        }
        var generator = SystemRandomNumberGenerator()
        var request = AdTagTemplate.Request(
            breakID: "-1", cacheBuster: VASTMacroValues.cacheBuster(&generator), timestamp: clock.wall)
        request.contentID = content
        let url = template.url(for: request)
        do {
            let document = try await fetch(url, deadline: deadline)
            let plan = Self.plan(document, source: url, target: target, settings: settings, duration: duration)
            entries.withLockedValue { $0[key] = .loaded(plan) }
            logger.info("VMAP of \(target): \(plan.breaks.count) breaks from \(url)")
            for warning in plan.warnings { logger.warning("VMAP of \(target): \(warning)") }
        } catch {
            entries.withLockedValue { $0[key] = .failed(now) }
            logger.warning("VMAP of \(target) failed; no VMAP breaks for 30 s: \(error)")
        }
    }

    /// The breaks of `document` on an asset of `duration` (pure): each placed break becomes a break
    /// of the target with ID `vmap-` and its `breakId` (letters, digits, `-`, `_`, `.`; others become
    /// `-`), a pre-roll `CUE="PRE"`, a post-roll `CUE="POST"`, a mid-roll at its time; all with
    /// X-RESUME-OFFSET=0 (the ads take no content time) and the configured duration.
    ///
    /// At most ``VMAPPlacement/defaultMaximumBreaks`` breaks are planned (the earliest), repetitions
    /// included; the plan's warnings name the VMAP (`source`, its URL) and say what was left out, by
    /// this cap or by the reader's (`vast-limit` notes).
    static func plan(
        _ document: VMAPDocument, source: String, target: Target, settings: AdServerSettings, duration: MediaTime
    ) -> Plan {
        var plan = Plan(breaks: [], sources: [:])
        let limited = document.notes.filter { $0.code == .limit }
        for note in limited.prefix(8) { plan.warnings.append("VMAP \(source): \(note)") }
        if limited.count > 8 { plan.warnings.append("VMAP \(source): \(limited.count - 8) more limit notes") }
        let placement = document.placement(duration: duration)
        if placement.dropped > 0 {
            plan.warnings.append(
                "VMAP \(source) places \(placement.breaks.count + placement.dropped) breaks on the asset; the first "
                    + "\(placement.breaks.count) are planned, the \(placement.dropped) later ones dropped")
        }
        var used: Set<String> = []
        for placed in placement.breaks {
            var id =
                "vmap-"
                + String(
                    placed.id.map { character -> Character in
                        character.isASCII && (character.isLetter || character.isNumber || "-_.".contains(character))
                            ? character : "-"
                    }.prefix(48))
            if used.contains(id) { id += "-\(used.count)" }
            used.insert(id)
            var request = InsertionRequest(id: id)
            switch placed.position {
            case .pre: request.cue = ["PRE"]
            case .post: request.cue = ["POST"]
            case .mid(let time): request.at = time
            }
            request.duration = settings.vmapBreakDuration
            request.resumeOffset = .zero
            plan.breaks.append(Break(target: target, interstitial: request))
            if let source = placed.adBreak.adSource { plan.sources[id] = source }
            if !placed.adBreak.tracking.isEmpty {
                plan.tracking[id] = AdCreativeSignaling.Tracking.grouped(placed.adBreak.tracking)
            }
        }
        return plan
    }

    private struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private func fetch(_ url: String, deadline: MediaTime) async throws -> VMAPDocument {
        guard ServerConfiguration.origin(of: url) != nil else { throw Failure(description: "\(url) is not http(s)") }
        let response = try await fetcher.get(
            url, deadline: clock.deadline(after: MediaTime(nanoseconds: max(1, deadline.nanoseconds))))
        guard (200..<300).contains(response.status.code) else {
            throw Failure(description: "\(url) answered HTTP \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: reader.limits.xml.maximumBytes)
        // Read on the ad servers' threads, never on the cooperative pool (as VAST documents are).
        let bytes = Array(body.readableBytesView)
        let reader = reader
        guard let read = await BlockingWorkPool.adServers.run({ Result { try AdDocument.read(bytes, reader: reader) } })
        else { throw Failure(description: "\(url): the document was not read (every reader was busy)") }
        switch try read.get() {
        case .vmap(let document): return document
        case .vast: throw Failure(description: "\(url) answered a VAST document, not a VMAP")
        }
    }
}
