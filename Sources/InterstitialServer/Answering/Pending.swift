/// A value known at once, or the work that finds it: what the one function answering a content
/// request returns, so that the ``RequestGuard`` gives the answers known at once on the
/// connection's event loop (``FastLane``) and the full path waits for the others.
///
/// The rule that makes both lanes one: a ``now(_:)`` has done what finding its value takes (a
/// viewer's attempt counted, a metric recorded); a ``later(_:)`` has done nothing yet, so that a
/// lane that cannot wait may drop it and leave the request to the full path, which asks again. A
/// function that returns ``later(_:)`` therefore changes nothing before it.
enum Pending<Value: Sendable>: Sendable {
    /// Known now.
    case now(Value)
    /// Found by running this, once awaited.
    case later(@Sendable () async throws(APIError) -> Value)

    /// The value, waiting for it when it is not known yet.
    func resolve() async throws(APIError) -> Value {
        switch self {
        case .now(let value): value
        case .later(let find): try await find()
        }
    }

    /// The value when it is known now; nil otherwise.
    var known: Value? {
        if case .now(let value) = self { return value }
        return nil
    }

    /// What `next` makes of the value: at once for a value known now (so `next` runs now), else
    /// once the value is found.
    func then<Next: Sendable>(
        _ next: @escaping @Sendable (Value) throws(APIError) -> Pending<Next>
    ) throws(APIError) -> Pending<Next> {
        switch self {
        case .now(let value):
            return try next(value)
        case .later(let find):
            return .later { () async throws(APIError) -> Next in try await next(try await find()).resolve() }
        }
    }
}
