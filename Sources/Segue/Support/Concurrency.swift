import CSegueAV
import Dispatch
import Foundation
import Synchronization

// The threads' meeting places: every type here that several threads share, and how each is
// safe to share.
//
// Every `@unchecked Sendable` type of the library, and why the compiler cannot check it
// (a test, `UncheckedSendableTests`, finds every such type in Sources and fails unless it is
// listed here by name):
// - Shared state under a lock of its own (here): `Locked`, a value reached only inside
//   `withLock`; `SequencedQueue`, whose dictionary and counters are touched only between
//   `condition.lock()` and `condition.unlock()`.
// - State under a lock of the type's own, beside FFmpeg's memory: `ClipPicture`
//   (Media/Clip.swift: its decoded picture is only read once made, FFmpeg counting its
//   references atomically; the RGBA image made from it is reached only under its lock) and
//   `StickerFeed` (Model/Sticker.swift: the decoder and its recent frames only under its lock).
// - C objects lent to one thread at a time: `Converters` (Media/Clip.swift: libswscale's
//   converters, each taken out of the idle list under a `Locked` by the thread that uses it).
// - Pixel memory that threads write in disjoint bands of rows and one thread then reads
//   whole: `FrameBuffer` and `BandBuffers` (Render/FrameBuffer.swift and SpareBuffers.swift),
//   `YUVFrame` and `YUVPlanes` (Media/YUV.swift), `ChannelSums` (Render/MeanFrames.swift: a
//   blurred frame's sums, added to band by band), and `UnsafeMutableSendablePointer`, the
//   pointer `Resample` hands its row workers.
// - Pixel memory only read while threads share it: `PagePictures` (Model/PixelMix.swift), a
//   per-pixel transition's two pages, drawn whole before any row of the frame is written
//   from them, and kept by the compiled frame until its last band is done.
// Everything else that threads share (`ClipFeed`, `PictureCache`, `FrameResources`, the
// pipeline's queues, `Threads.Handle`) is built from these and from Sendable parts (atomics,
// semaphores), and the compiler checks it.

/// A value shared between threads, reached only under its lock.
///
/// Like the standard library's `Mutex`, but locked with a pthread mutex (NSLock), which the
/// thread sanitizer understands: on Linux `Mutex` waits on a futex directly, which the
/// sanitizer cannot see, so it reports every access as a race.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// `transform` applied to each element, `threads` at a time; the first error thrown, if any,
/// is rethrown once all are done.
func parallelMap<T: Sendable, R: Sendable>(_ items: [T], threads: Int, _ transform: @Sendable (T) throws -> R) throws -> [R] {
    guard items.count > 1, threads > 1 else { return try items.map(transform) }
    let next = Atomic<Int>(0)
    let results = Locked([Result<R, Error>?](repeating: nil, count: items.count))
    DispatchQueue.concurrentPerform(iterations: min(threads, items.count)) { _ in
        while true {
            let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard i < items.count else { return }
            let result = Result { try transform(items[i]) }
            results.withLock { $0[i] = result }
        }
    }
    return try results.withLock { $0 }.map { try $0!.get() }
}

/// A sum of seconds kept by one thread and read by another.
final class Accumulator: Sendable {
    private let total = Locked(0.0)
    var value: Double { total.withLock { $0 } }
    func add(_ seconds: Double) { total.withLock { $0 += seconds } }
}

/// A value held by reference and never changed: copies of what holds it share one storage.
final class Shared<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// The process's interruption (SIGINT, SIGTERM), for the work inside a frame or a C call that
/// no export's `Cancellation` reaches: a soundtrack's mix stops at its next block, the wait
/// for a GLSL frame at its next tenth of a second. A host program's signal handler requests
/// it (the segue command's does); it is never taken back.
public enum Interrupt {
    public static func request() { segue_interrupt() }
    public static var isRequested: Bool { segue_interrupted() != 0 }
}

/// A request to stop, set once from any thread and read from any other.
public final class Cancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)

    public init() {}

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    public func cancel() { cancelled.store(true, ordering: .releasing) }
}

/// Seconds during which at least one thread was busy, however many were at once: with one
/// thread, the sum of its busy spells; with several, the time any of them was at work.
final class BusyClock: Sendable {
    private struct State {
        var busy = 0
        var since: UInt64 = 0
        var total: UInt64 = 0
    }
    private let state = Locked(State())
    /// Nanoseconds from any fixed moment.
    private let now: @Sendable () -> UInt64

    init(now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.now = now
    }

    var seconds: Double { Double(state.withLock { $0.total }) / 1e9 }

    /// A thread starts a busy spell.
    func begin() {
        let now = now()
        state.withLock { state in
            if state.busy == 0 { state.since = now }
            state.busy += 1
        }
    }

    /// A thread ends its busy spell.
    func end() {
        let now = now()
        state.withLock { state in
            precondition(state.busy > 0, "a busy spell ended that did not begin")
            state.busy -= 1
            if state.busy == 0 { state.total += now - state.since }
        }
    }
}

/// A queue whose items are put with their place in a sequence (0, 1, 2, ...), by any number
/// of threads in any order, and taken in the sequence's order. `put` waits while its place is
/// `window` or more past the next one to be taken; `take` waits for the next one. A waiting
/// thread is woken only for what it waits for: the taker by the next item (not by items put
/// ahead of it, which would cost a context switch each), putters by a place freed.
final class SequencedQueue<Element: Sendable>: @unchecked Sendable {   // every access under `condition`
    private let condition = NSCondition()
    private var waiting: [Int: Element] = [:]
    private var next = 0
    private var takerWaits = false
    private var puttersWaiting = 0
    private let window: Int

    init(window: Int) {
        precondition(window >= 1)
        self.window = window
    }

    func put(_ item: Element, at place: Int) {
        condition.lock()
        defer { condition.unlock() }
        precondition(place >= next && waiting[place] == nil, "place \(place) put twice")
        while place >= next + window {
            puttersWaiting += 1
            condition.wait()
            puttersWaiting -= 1
        }
        waiting[place] = item
        if place == next && takerWaits { condition.broadcast() }
    }

    func take() -> Element {
        condition.lock()
        defer { condition.unlock() }
        while waiting[next] == nil {
            takerWaits = true
            condition.wait()
            takerWaits = false
        }
        let item = waiting.removeValue(forKey: next)!
        next += 1
        if puttersWaiting > 0 { condition.broadcast() }
        return item
    }
}

/// A first-in, first-out queue of bounded size whose `put` waits while it is full and whose
/// `take(unless:)` waits while it is empty: a list under a mutex and two counting semaphores, one of
/// free places and one of items.
final class BlockingQueue<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    private let places: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        // Made at 0 and raised, not made at `capacity`: libdispatch traps when a semaphore is
        // freed below the value it was made with, which a queue left holding items would be.
        places = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { places.signal() }
    }

    func put(_ item: Element) {
        places.wait()
        items.withLock { $0.append(item) }
        filled.signal()
    }

    /// Wakes a waiting `take(unless:)`, so it sees its stop flag.
    func wakeAll() { filled.signal() }

    /// The first item, waited for while there is none; nil once `stop` is cancelled and
    /// nothing is queued.
    func take(unless stop: Cancellation) -> Element? {
        filled.wait()
        guard let item = items.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            if stop.isCancelled { return nil }
            return take(unless: stop)
        }
        places.signal()
        return item
    }
}

/// A value one thread makes and others wait for: fulfilled once, waited for by any number.
final class Promise<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<Result<Value, any Error>?>(nil)

    init() {}

    /// Sets the outcome and wakes the waiters; a second outcome is ignored.
    func fulfil(_ outcome: Result<Value, any Error>) {
        let first = result.withLock { result -> Bool in
            guard result == nil else { return false }
            result = outcome
            return true
        }
        if first { done.signal() }
    }

    /// The value, waited for; its error if it failed.
    func wait() throws -> Value {
        done.wait()
        done.signal()   // let the next waiter through too
        return try result.withLock { $0! }.get()
    }
}

/// What the frame being composed on this thread was refused for (a GLSL transition's NaN):
/// the composing thread sets `current` around its render, a per-pixel transition captures it
/// when its rows are made (on that thread) and notes a reason from any band's thread.
public final class FrameRefusals: Sendable {
    @TaskLocal public static var current: FrameRefusals?
    private let reasons = Locked([String]())

    public init() {}

    /// Notes that the frame is not a picture, and why.
    public func refuse(_ reason: String) { reasons.withLock { if $0.isEmpty { $0.append(reason) } } }

    /// The first reason noted, if any.
    public var first: String? { reasons.withLock { $0.first } }
}
