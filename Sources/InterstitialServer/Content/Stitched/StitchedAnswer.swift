/// What a viewer's break answered for one of its ads in the stitched form, kept for every later
/// playlist and reload of that break (``StitchedService/answers``), so that its renditions agree.
enum StitchedAnswer: Sendable {
    /// The ad is stitched (its renditions, or the conditioner's).
    case stitched
    /// The ad is left out, for this failure (its reason and message answer every later playlist).
    case leftOut(AdRenditionLoader.Failure)
}
