/// What a viewer's break answered for one of its ads in the stitched form, kept for every later
/// playlist and reload of that break (``StitchedService/answers``), so that its renditions agree.
enum StitchedAnswer: Sendable {
    /// The ad is stitched (its renditions, or the conditioner's).
    case stitched
    /// The ad is left out, for this failure (its reason and message answer every later playlist).
    case leftOut(AdRenditionLoader.Failure)

    /// The answer `made` stands for.
    init<Ad>(_ made: Result<Ad, AdRenditionLoader.Failure>) {
        switch made {
        case .success: self = .stitched
        case .failure(let failure): self = .leftOut(failure)
        }
    }

    /// What a request does with the ad it made (`made`) once this is the answer kept for the
    /// viewer's break: its own answer, or the one a request racing it kept first (one asked while
    /// the ad's audio was being measured, the other after).
    enum Settled<Ad> {
        /// This is the request's answer.
        case answer(Result<Ad, AdRenditionLoader.Failure>)
        /// The ad was stitched by the answer kept where this request left it out: it tries once more.
        case again
    }

    /// What a request that made `made` answers, this being the answer kept for the viewer's break:
    /// - the same answer as `made`: `made`;
    /// - kept left out where `made` is stitched: left out, for the failure kept, so that no
    ///   playlist of the break has the ad where another does not;
    /// - kept stitched where `made` left the ad out: ``Settled/again``.
    func settle<Ad>(_ made: Result<Ad, AdRenditionLoader.Failure>) -> Settled<Ad> {
        switch (self, made) {
        case (.leftOut(let failure), .success): .answer(.failure(failure))
        case (.stitched, .failure): .again
        default: .answer(made)
        }
    }
}
