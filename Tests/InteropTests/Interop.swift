import Testing

/// The interop tier: blerig's radio side against processes nobody here wrote, rootcanal (Google's virtual
/// controller) and Bumble (an independent host), from the venv `make interop-deps` makes.
///
/// Every suite of the tier is nested here and runs one test at a time: each test starts real processes on a
/// two-core machine, and checks afterwards that none of them is left. Without the venv the tier is skipped
/// with the reason, except under CI (`CI=true`), where it runs and fails on the missing venv.
@Suite(.serialized, .enabled(if: InteropEnvironment.runs, InteropEnvironment.skipReason))
enum Interop {}
