import NIOConcurrencyHelpers

/// One request's hold on an upstream origin's slots, released once (explicitly, or when dropped).
final class UpstreamSlot: Sendable {
    private let onRelease: NIOLockedValueBox<(@Sendable () -> Void)?>

    init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = NIOLockedValueBox(onRelease) }

    func release() {
        let action = onRelease.withLockedValue { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { release() }
}
