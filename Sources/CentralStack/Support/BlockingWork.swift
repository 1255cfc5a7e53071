/// Work that blocks its thread (a durable SQLite commit) run away from a thread that must not wait. A bench's radio
/// can ask for its central's work to run on the thread that reads its controller (blerig's HCI host does: a
/// response then resumes the waiting procedure with no thread hop); blocking there would hold up every packet of
/// the radio. Code that runs such work sets ``offload`` around it, and ``run(_:)`` then hops to the global pool for
/// the duration of the blocking call. Elsewhere (the virtual farm, whose tasks must stay on the simulation's
/// executor, or an app) ``run(_:)`` calls the body where it is.
public enum BlockingWork {
    /// True in a task whose thread must not block: ``run(_:)`` moves blocking work off it.
    @TaskLocal public static var offload = false

    /// Runs `body`, on the global concurrent executor when ``offload`` is set, and returns its result.
    public static func run<T: Sendable, E: Error>(_ body: @Sendable () throws(E) -> T) async throws(E) -> T {
        guard offload else { return try body() }
        let result: Result<T, E> = await withTaskExecutorPreference(globalConcurrentExecutor) {
            Result { () throws(E) -> T in try body() }
        }
        return try result.get()
    }
}
