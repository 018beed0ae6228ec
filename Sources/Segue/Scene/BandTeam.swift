import Foundation
import Glibc

/// Helper threads that run a piece of work beside the calling thread, over and over: the
/// compositor's bands, on threads of its own. They are made by the thread that makes the
/// team, so they take its scheduling priority, as Dispatch's shared threads would not.
final class BandTeam: Sendable {
    private struct State {
        var work: (@Sendable () -> Void)?
        var stopping = false
    }
    private let helpers: Int
    private let state = Locked(State())
    private let start = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(helpers: Int) {
        precondition(helpers >= 1)
        self.helpers = helpers
        for _ in 0..<helpers {
            let thread = Thread { [start, finished, state] in
                while true {
                    start.wait()
                    let (work, stopping) = state.withLock { ($0.work, $0.stopping) }
                    if stopping { return }
                    work?()
                    finished.signal()
                }
            }
            thread.stackSize = 1 << 22
            thread.start()
        }
    }

    /// Runs `body` on the calling thread and once for each helper on the team's threads (one
    /// that wakes early may take a second turn); returns when all are done.
    func run(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.work = body }
        for _ in 0..<helpers { start.signal() }
        body()
        for _ in 0..<helpers { finished.wait() }
        state.withLock { $0.work = nil }
    }

    /// Ends the helper threads (after the work they run, if any).
    func stop() {
        state.withLock { $0.stopping = true }
        for _ in 0..<helpers { start.signal() }
    }
}

/// Lowering a thread's scheduling priority: threads that compose and prepare ahead of an
/// encoder yield to its threads when both want the CPU, and use the time it leaves.
enum Yielding {
    /// How much less: nice +10, about a tenth of the CPU share of a normal thread when they
    /// compete, and all of a core that is idle.
    static let niceness: Int32 = 10

    /// Lowers the calling thread's priority (on Linux, a thread's own nice value). Raising it
    /// back needs privileges, so only threads made for the purpose are lowered.
    static func lowerThisThread() {
        let process: Int32 = 0   // PRIO_PROCESS; with id 0 on Linux: the calling thread
        errno = 0
        let current = getpriority(process, 0)
        guard errno == 0 else { return }
        _ = setpriority(process, 0, min(19, current + niceness))
    }
}
