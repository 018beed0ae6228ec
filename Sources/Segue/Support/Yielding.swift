import Glibc

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
