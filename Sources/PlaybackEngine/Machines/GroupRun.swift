import HLSInterstitials
import HLSPlaylist

extension PlaybackStateMachine {
    /// An interstitial group being played: its members one after the other, each one's assets back
    /// to back.
    ///
    /// It changes only through its mutating methods, which return what happened (``Step``) for the
    /// machine to report; a new member starts from a fresh ``Member``.
    package struct GroupRun: Sendable {
        /// How a member ended.
        enum Ending: String, Sendable {
            case completed, limit, skipped, cancelled, failed, seek
        }

        /// The progress of the member playing; each member starts afresh.
        package struct Member: Sendable {
            /// The member as last seen (kept if the server removes it: it runs to completion).
            package fileprivate(set) var event: InterstitialEvent
            /// The clock time it started at.
            fileprivate(set) var startedAt: Duration
            /// Whether its start was reported.
            fileprivate(set) var started = false
            /// For a start inside it (a live join, R11, R26; a seek into a RANGE event): the offset into it.
            package fileprivate(set) var joinOffset: MediaTime = .zero
            /// Where it starts once its assets are known (a coordinated group is further in).
            fileprivate(set) var seekOffset: MediaTime?
            /// Time from its start: played, plus the join offset.
            package fileprivate(set) var elapsed: MediaTime = .zero
            /// The indices of the assets to play; nil until the asset list is known.
            package fileprivate(set) var plan: [Int]?
            /// The place in ``plan`` of the asset playing (or next).
            package fileprivate(set) var planPosition = 0
            /// Where the first asset of the plan starts.
            fileprivate(set) var startOffsetInFirstAsset: MediaTime = .zero
            /// The asset playing; nil between assets.
            package fileprivate(set) var assetIndex: Int?
            /// The media of the asset playing.
            fileprivate(set) var currentMedia: AssetMedia?
            /// The position in the current asset.
            package fileprivate(set) var assetPosition: MediaTime = .zero
            /// The skip control in force (the asset list's overrides the tag's).
            fileprivate(set) var skipControl = SkipControl()
            /// The skippable state last reported.
            fileprivate(set) var skippable = SkippableEventState.notSkippable
            /// Waiting for an asset list or an asset playlist.
            fileprivate(set) var waiting = false
            /// Whether part of it will not play: joined or moved past, an asset failed or left out.
            fileprivate(set) var cutShort = false

            /// A member not started, `joinOffset` into it.
            init(event: InterstitialEvent, at clock: Duration, joinOffset: MediaTime = .zero) {
                self.event = event
                self.startedAt = clock
                self.joinOffset = joinOffset
                self.elapsed = joinOffset
                self.cutShort = joinOffset > .zero
            }
        }

        /// What the content of the current member is now, as the machine knows it.
        struct Content {
            /// Whether its content failed to load (R7).
            var failed: Bool
            /// What plays for it; nil while its asset list is not loaded.
            var list: AssetList?
            /// Its asset playlists, by index.
            var assets: [Int: LoadBook.AssetState]
            /// Its playout limit.
            var playoutLimit: MediaTime?
            /// The most assets it plays.
            var maximumAssetCount: Int?
        }

        /// One transition of the current member.
        enum Step: Equatable {
            /// Nothing is due.
            case none
            /// Waiting for its asset list or an asset.
            case waiting
            /// The member started.
            case memberStarted
            /// Its assets are known: the plan is made.
            case planned
            /// An asset of the plan failed: it is passed over.
            case passedFailedAsset
            /// Asset `index` started.
            case assetStarted(Int)
            /// Asset `index` ended.
            case assetEnded(Int)
            /// The skippable state changed (R16).
            case skippableChanged(SkippableEventState)
            /// The member ends.
            case end(Ending)
        }

        /// The group; resumption offsets count from its start (for PRE, the playback start point, R10).
        fileprivate(set) var group: Group
        /// The members to play, in order (ONCE events already played are left out).
        fileprivate(set) var members: [String]
        /// The place of the current member in ``members``.
        fileprivate(set) var memberIndex = 0
        /// Where primary was suspended.
        let suspendedAt: MediaTime
        /// The clock time the group started.
        let groupStartedAt: Duration
        /// Where primary resumes after the members that ended, as the schedule has it (R5).
        fileprivate(set) var resume: MediaTime
        /// Where primary resumes instead (a JUMP seek's target, a cancel's offset).
        fileprivate(set) var resumeOverride: MediaTime?
        /// The target of the JUMP seek that started the group: the seek completes when it ends (R14).
        fileprivate(set) var completesSeek: MediaTime?
        /// Where primary would resume if every member played as scheduled.
        let projectedResume: MediaTime
        /// The current member's progress.
        package fileprivate(set) var member: Member

        /// A run of `members` of `group` (the first is `event`), primary suspended at `suspendedAt`.
        init(
            group: Group, members: [String], event: InterstitialEvent, suspendedAt: MediaTime, at clock: Duration,
            joinOffset: MediaTime, resumeOverride: MediaTime?
        ) {
            self.group = group
            self.members = members
            self.suspendedAt = suspendedAt
            self.groupStartedAt = clock
            self.resume = group.start
            self.resumeOverride = resumeOverride
            self.projectedResume = group.resume
            self.member = Member(event: event, at: clock, joinOffset: joinOffset)
        }

        // MARK: Reading

        /// The ID of the current member.
        package var eventID: String { members[memberIndex] }
        /// The current member as last seen.
        package var event: InterstitialEvent { member.event }
        /// Time from the start of the member: played, plus the join offset.
        package var elapsed: MediaTime { member.elapsed }
        /// The join offset into the current member.
        package var joinOffset: MediaTime { member.joinOffset }
        /// The indices of the assets to play; nil until the asset list is known.
        package var plan: [Int]? { member.plan }
        /// The place in ``plan`` of the asset playing (or next).
        package var planPosition: Int { member.planPosition }
        /// The asset playing.
        package var assetIndex: Int? { member.assetIndex }
        /// The position in the current asset.
        package var assetPosition: MediaTime { member.assetPosition }
        /// The media of the asset playing.
        var currentMedia: AssetMedia? { member.currentMedia }
        /// The duration of the asset playing; nil between assets.
        package var currentDuration: MediaTime? { member.currentMedia?.duration }
        /// The skip control in force.
        var skipControl: SkipControl { member.skipControl }
        /// Waiting for an asset list or an asset playlist.
        var waiting: Bool { member.waiting }
        /// Whether part of the member did not or will not play (a join or a move past part of it, a
        /// failed asset passed over, assets left out by the template's maximum): it cannot have
        /// played entirely.
        var cutShort: Bool { member.cutShort }
        /// Where primary resumes after the run: the override, or the schedule's resumption point
        /// after the last member that ended (R5, R6).
        var resumePoint: MediaTime { resumeOverride ?? resume }
        /// Whether another member follows the current one.
        var hasNextMember: Bool { memberIndex + 1 < members.count }

        /// The skippable state at the member's elapsed time (R16).
        var skippableState: SkippableEventState {
            guard let window = member.skipControl.window else { return .notSkippable }
            if member.elapsed < window.start { return .notYetEligible }
            if let end = window.end, member.elapsed >= end { return .noLongerEligible }
            return .eligible
        }

        // MARK: Progress

        /// One transition of the current member (seen now as `event`, with `content`) at `clock`.
        mutating func step(event: InterstitialEvent, content: Content, at clock: Duration) -> Step {
            member.event = event
            if !member.started {
                member.started = true
                member.startedAt = clock
                return .memberStarted
            }
            if member.plan == nil { return plan(content) }
            if member.assetIndex == nil {
                guard let plan = member.plan, member.planPosition < plan.count else {
                    return .end(content.failed ? .failed : .completed)
                }
                let index = plan[member.planPosition]
                switch content.assets[index] {
                case .loaded(let media)?:
                    member.assetIndex = index
                    member.currentMedia = media
                    member.assetPosition = member.planPosition == 0 ? member.startOffsetInFirstAsset : .zero
                    member.waiting = false
                    return .assetStarted(index)
                case .failed?:
                    member.planPosition += 1
                    member.cutShort = true
                    return .passedFailedAsset
                default:
                    member.waiting = true
                    return .waiting
                }
            }
            if let limit = content.playoutLimit, member.elapsed >= limit { return .end(.limit) }
            if let media = member.currentMedia, member.assetPosition >= media.duration {
                let index = member.assetIndex ?? 0
                member.assetIndex = nil
                member.currentMedia = nil
                member.planPosition += 1
                return .assetEnded(index)
            }
            let state = skippableState
            if state != member.skippable {
                member.skippable = state
                return .skippableChanged(state)
            }
            return .none
        }

        /// Makes the plan of the current member once its assets are known: from where it is joined.
        private mutating func plan(_ content: Content) -> Step {
            if content.failed { return .end(.failed) }
            guard let list = content.list else {
                member.waiting = true
                return .waiting
            }
            member.skipControl = member.event.skipControl.overridden(by: list.skipControl)
            let skip = max(member.joinOffset, member.seekOffset ?? .zero)
            var timed = list
            if skip > .zero, member.event.assetURI != nil, member.event.assetList == nil {
                // Where to start inside an X-ASSET-URI asset needs its real duration (the tag may
                // give none, only X-PLAYOUT-LIMIT): wait for its playlist (R11, R26).
                switch content.assets[0] {
                case .loaded(let media)?: timed.assets[0].duration = media.duration
                case .failed?: break
                default:
                    member.waiting = true
                    return .waiting
                }
            }
            member.seekOffset = nil
            if skip > .zero {
                if let start = timed.startPosition(at: skip) {
                    member.plan = Array(start.index..<timed.assets.count)
                    member.startOffsetInFirstAsset = start.offset
                } else {
                    member.plan = []
                }
            } else {
                member.plan = Array(list.assets.indices)
            }
            if let most = content.maximumAssetCount, let plan = member.plan, plan.count > max(0, most) {
                member.plan = Array(plan.prefix(max(0, most)))
                member.cutShort = true
            }
            member.waiting = false
            return .planned
        }

        /// Plays `distance` of media; returns the asset position it started from.
        mutating func play(_ distance: MediaTime) -> MediaTime {
            let from = member.assetPosition
            member.elapsed = member.elapsed + distance
            member.assetPosition = member.assetPosition + distance
            return from
        }

        /// Moves to `offset` from where the member's playback began, in the assets of the plan
        /// (loaded in `assets`); nil when none of them is playable. Returns the asset that played
        /// before, when the move leaves it, whether the asset changed, and the one playing now.
        mutating func move(
            to offset: MediaTime, assets: [Int: LoadBook.AssetState]
        ) -> (
            left: Int?, changed: Bool, index: Int, media: AssetMedia
        )? {
            guard let plan = member.plan else { return nil }
            var start = MediaTime.zero
            var target: (position: Int, index: Int, media: AssetMedia, offset: MediaTime)?
            for (position, index) in plan.enumerated() {
                guard case .loaded(let media)? = assets[index] else { continue }
                let length = position == 0 ? media.duration - member.startOffsetInFirstAsset : media.duration
                if offset < start + length || position == plan.count - 1 {
                    let into = min(offset - start, length) + (position == 0 ? member.startOffsetInFirstAsset : .zero)
                    target = (position, index, media, max(.zero, into))
                    break
                }
                start = start + length
            }
            guard let target else { return nil }
            let changed = member.assetIndex != target.index
            let left = changed ? member.assetIndex : nil
            member.planPosition = target.position
            member.assetIndex = target.index
            member.currentMedia = target.media
            member.assetPosition = target.offset
            if member.joinOffset + offset > member.elapsed { member.cutShort = true }
            member.elapsed = member.joinOffset + offset
            return (left, changed, target.index, target.media)
        }

        /// Places playback `offset` into the member before its assets are known: it starts there
        /// once they are.
        mutating func awaitPlan(at offset: MediaTime) {
            if offset > member.elapsed { member.cutShort = true }
            member.seekOffset = offset
            member.elapsed = offset
        }

        /// The member ends: its skippable state goes back to not skippable. False when it was.
        mutating func endSkippable() -> Bool {
            guard member.skippable != .notSkippable else { return false }
            member.skippable = .notSkippable
            return true
        }

        // MARK: Members

        /// The current member ended; primary resumes at `resume` after it (nil: as before), and
        /// `joining` members (events that joined the group meanwhile) play after the others.
        mutating func memberEnded(resume: MediaTime?, joining: [String]) {
            members += joining.filter { !members.contains($0) }
            self.resume = resume ?? self.resume
        }

        /// Makes member `index` the current one, not yet started (seen as `event`, nil: as the
        /// current one); false when there is no such member.
        @discardableResult
        mutating func switchMember(to index: Int, event: InterstitialEvent?, at clock: Duration) -> Bool {
            guard members.indices.contains(index) else { return false }
            memberIndex = index
            member = Member(event: event ?? member.event, at: clock)
            return true
        }

        /// Keeps the members that already played or play now, and those of the later ones in `ids`.
        mutating func keepMembers(in ids: Set<String>) {
            let current = eventID
            members = members.enumerated().filter { $0.offset <= memberIndex || ids.contains($0.element) }
                .map(\.element)
            memberIndex = members.firstIndex(of: current) ?? 0
        }

        /// Primary resumes at `point` instead of the schedule's resumption point (nil: unchanged).
        mutating func overrideResume(_ point: MediaTime?) { resumeOverride = point ?? resumeOverride }

        /// The run ends a JUMP seek to `target` (R14).
        mutating func completeSeek(at target: MediaTime) { completesSeek = target }
    }
}
