import Glibc

/// A detached POSIX thread for a transport's reads: a blocking loop that must not occupy a thread of Swift's
/// cooperative pool.
enum ReaderThread {
    /// Starts `body` on a new detached thread; returns the errno when the thread cannot be created.
    static func spawn(_ body: @escaping @Sendable () -> Void) -> Errno? {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return Errno(result)
        }
        pthread_detach(thread)
        return nil
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
