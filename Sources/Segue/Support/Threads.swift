import Dispatch
import Foundation
import Glibc

/// The one place Segue starts threads of its own. Each is started for a purpose named here,
/// with its priority and stack, and gives a handle that its owner joins (waits for). Dispatch's
/// shared pool (`concurrentPerform` in the compositor and the resampler) is used as it is
/// and is not listed: those threads are not Segue's.
///
/// The threads of an export, and who joins them:
/// - `composing`: the frame pipeline's planning and composing thread, and its `composingHelper`s
///   (one per frame composed at once); the pipeline joins them before it returns.
/// - `preparingPictures`: a run's `FrameResources` thread making the screens' still pictures
///   and overlays' first pictures ahead of the frames, as the schedule asks. It holds the
///   resources only while it makes a picture and ends by itself when they are let go (the
///   last reference may be its own, so nothing waits for it).
/// - `decodingClip`: a clip slide's decoder (`ClipFeed`); it ends when the feed is closed.
/// - `fingerprint`: the job's fingerprint, read beside the first pictures; cancelled and
///   joined with the export.
/// - `storyboardAhead`: a batch's next job's frames prepared (`PreparedAhead`) while the job before it runs; joined
///   by the export that takes it.
/// - `drawingShader`: a GLSL transition's frame, drawn by llvmpipe while the compositor thread
///   that asked for it waits, up to a time limit; a shader whose loop never ends cannot be
///   stopped, so its thread is left to the end of the process (the frame is refused).
/// - `frontEnd`: a program built on the library (`segue preview`'s watcher, its renders and
///   its export), started through `Workers`; its owner joins it or lets it run to the end.
///   Work per request runs on `Workers.pool`, a fixed number of these, kept for the process.
enum Threads {
    enum Purpose: String, CaseIterable, Sendable {
        case composing = "segue compose"
        case composingHelper = "segue compose helper"
        case preparingPictures = "segue pictures"
        case decodingClip = "segue clip"
        case fingerprint = "segue fingerprint"
        case storyboardAhead = "segue next job"
        case drawingShader = "segue glsl"
        case frontEnd = "segue worker"
    }

    /// A started thread, to wait for.
    final class Handle: Sendable {
        fileprivate let done = DispatchSemaphore(value: 0)

        /// Waits until the thread's body has returned (at once if it has); any number of calls.
        func join() {
            done.wait()
            done.signal()
        }
    }

    /// Starts `body` on a new thread for `purpose`. `yielding`: the thread lowers its priority
    /// first (see `lowerThisThread`), so that it takes the time an encoder leaves.
    @discardableResult
    static func start(_ purpose: Purpose, yielding: Bool = false, stackSize: Int? = nil,
                      _ body: @escaping @Sendable () -> Void) -> Handle {
        let handle = Handle()
        let thread = Thread {
            if yielding { lowerThisThread() }
            body()
            handle.done.signal()
        }
        thread.name = purpose.rawValue
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return handle
    }

    /// How much less a yielding thread gets: nice +10, about a tenth of the CPU share of a
    /// normal thread when they compete, and all of a core that is idle.
    static let niceness: Int32 = 10

    /// Lowers the calling thread's priority (on Linux, a thread's own nice value). Raising it
    /// back needs privileges, so only threads made for the purpose are lowered, never
    /// Dispatch's shared ones.
    static func lowerThisThread() {
        let process: Int32 = 0   // PRIO_PROCESS; with id 0 on Linux: the calling thread
        errno = 0
        let current = getpriority(process, 0)
        guard errno == 0 else { return }
        _ = setpriority(process, 0, min(19, current + niceness))
    }
}

/// Threads for a program built on the library (the preview server renders and watches files
/// on threads of its own, away from Swift's cooperative pool, which blocking work would starve).
public enum Workers {
    /// Starts `body` on a thread of its own; the returned function waits for it to end. For
    /// work that lasts (a watcher, a session's renders), a few per program. `yielding`: the
    /// thread, and every thread it starts, runs at a lower priority (nice +10), so that a
    /// server's answers come before its renders.
    @discardableResult
    public static func start(yielding: Bool = false, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let handle = Threads.start(.frontEnd, yielding: yielding, body)
        return { handle.join() }
    }

    /// Runs `body` on one of `pool`'s threads and gives its result to the awaiting task: work
    /// asked for per request (a frame, a thumbnail), queued when every thread is busy, so that
    /// a burst of requests starts no thread of its own.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            pool.run { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The threads `run` uses: as many as the process's CPUs, at least two.
    static let pool = WorkerPool(size: max(2, CPUBudget.forThisProcess))
}

/// A fixed number of threads that take queued work in turn, started as work first needs them
/// and kept for the rest of the process.
final class WorkerPool: Sendable {
    let size: Int
    private let state = Locked<(queue: [@Sendable () -> Void], started: Int)>(([], 0))
    private let queued = DispatchSemaphore(value: 0)

    init(size: Int) { self.size = max(1, size) }

    /// Queues `work` for the next free thread.
    func run(_ work: @escaping @Sendable () -> Void) {
        let startOne = state.withLock { state -> Bool in
            state.queue.append(work)
            guard state.started < size else { return false }
            state.started += 1
            return true
        }
        if startOne {
            Threads.start(.frontEnd) { [self] in
                while true {
                    queued.wait()
                    let next = state.withLock { $0.queue.removeFirst() }
                    next()
                }
            }
        }
        queued.signal()
    }

    /// The threads started so far (at most `size`).
    var started: Int { state.withLock { $0.started } }
}
