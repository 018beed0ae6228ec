import Dispatch
import Foundation

/// Composes a job's frames on several threads and hands them to a sink in their order, so
/// that composing and encoding overlap and memory stays flat however long the video is.
///
/// Frames are composed side by side, each whole by one thread, rather than each cut in bands
/// that all threads draw: no thread waits for another within a frame, so none is woken per
/// frame (tens of microseconds in a virtual machine, a tenth of a fast transition's frame).
/// More threads than `framesAtOnce` draw each frame's bands together.
///
/// One ordered step, under one lock, plans the frames in order a few ahead (`planAhead`):
/// the storyboard moves on, and each frame's scene and contents are planned once, its clip
/// pictures asked of their feeds. A worker then takes the next planned frame and, apart
/// from the others, waits for its pictures (made now if the storyboard has not made them
/// yet), draws it, and puts it in a `SequencedQueue`, from which the sink takes frames in
/// order. A still hold that repeats the frame before is not composed again, and a clip frame
/// that fills the canvas unchanged is copied, not composed (`Storyboard.soleClipPicture`).
struct FramePipeline {
    /// Frames composed ahead of the sink.
    static let queueDepth = 2
    /// Frames composed at once, at most: each holds a frame buffer (8 MB at 1080x1920 for
    /// sinks that read RGBA) and the clip pictures it draws, so memory would grow with the
    /// threads.
    static let framesAtOnce = 4
    /// Frames planned ahead of the one a worker takes next: their clip pictures are decoded
    /// meanwhile, beside the frames being drawn.
    static let planAhead = 3

    let storyboard: Storyboard
    let indices: [Int]
    let threads: Int
    /// The file the frames are for, in errors.
    let output: String
    /// Whether the threads that compose yield to the encoder's.
    let yielding: Bool

    /// What a run composed, and the time it took.
    struct Outcome {
        var composed = 0
        /// Frames copied straight from a clip instead (`Storyboard.soleClipPicture`).
        var copied = 0
        /// Seconds during which at least one thread composed (planning, drawing).
        var composeSeconds: Double
        /// Seconds spent waiting for pictures not made yet.
        var waitSeconds: Double
    }

    private enum Message {
        case frame(Int, FrameBuffer)
        /// The frame equals the one before it (a still hold): nothing new was composed.
        case repeatLast(Int)
        /// Composing failed (a picture could not be read); `.end` follows.
        case failed(Error)
        case end
    }

    /// A frame planned, or one that repeats the frame before it.
    private enum Planned {
        case frame(FramePlan)
        case repeatLast(Int)
    }

    /// The ordered step's state.
    private struct Turn {
        /// The place in `indices` of the next frame to plan.
        var position = 0
        var planned: [Planned] = []
        /// The place in the sink's sequence of the next frame taken.
        var sequence = 0
        /// The still the frame planned last shows.
        var previous: Storyboard.Still?
        /// Frame buffers made so far.
        var made = 0
        var over = false
    }

    private struct Work {
        var sequence: Int
        var frame: FrameBuffer
        var plan: FramePlan
    }

    /// Composes every frame into `sink` (`write` for each, in order, then `finish`); on an
    /// error or a cancellation the sink is aborted and the error thrown.
    func run(into sink: FrameSink, cancellation: Cancellation?, progress: (Int) -> Void) throws -> Outcome {
        let workers = max(1, min(threads, FramePipeline.framesAtOnce, indices.count))
        // Worker w draws its frames' bands on its share of the threads.
        let share: @Sendable (Int) -> Int = { [threads] w in threads / workers + (w < threads % workers ? 1 : 0) }
        let queue = SequencedQueue<Message>(window: FramePipeline.queueDepth)
        // At most `frames` frame buffers: one the sink holds, those queued and one per worker;
        // made as first needed (the first frame does not wait for the others' memory), then
        // handed back and forth through `pool`.
        let frames = FramePipeline.queueDepth + workers + 1
        let pool = BlockingQueue<FrameBuffer>(capacity: frames)
        let stop = Cancellation()
        let composeTime = BusyClock(), waitTime = Accumulator(), copies = Locked(0)
        let turn = Locked(Turn())
        let storyboard = storyboard, indices = indices, threads = threads, output = output
        let canvas = storyboard.canvas, form = sink.reads

        // Plans frames until `ahead` are waiting (or none is left).
        @Sendable func plan(_ t: inout Turn) {
            while t.planned.count <= FramePipeline.planAhead && t.position < indices.count {
                let index = indices[t.position]
                t.position += 1
                storyboard.willPlan(index)
                let still = storyboard.still(at: index)
                if let still, still == t.previous {
                    t.planned.append(.repeatLast(index))
                    continue
                }
                t.previous = still
                composeTime.begin()
                t.planned.append(.frame(storyboard.frame(at: index)))
                composeTime.end()
            }
        }
        // The next frame to draw, or nil when there is none (or composing stopped).
        @Sendable func next() -> Work? {
            turn.withLock { t -> Work? in
                while !t.over {
                    if stop.isCancelled || cancellation?.isCancelled == true { t.over = true; break }
                    plan(&t)
                    guard !t.planned.isEmpty else { break }
                    switch t.planned.removeFirst() {
                    case let .repeatLast(index):
                        queue.put(.repeatLast(index), at: t.sequence)
                        t.sequence += 1
                    case let .frame(plan):
                        do {
                            let frame: FrameBuffer
                            if t.made < frames {
                                t.made += 1
                                frame = try FrameBuffer(width: canvas.width, height: canvas.height, readAs: form, for: output)
                            } else {
                                guard let taken = pool.take(unless: stop) else { t.over = true; break }
                                frame = taken
                            }
                            t.sequence += 1
                            return Work(sequence: t.sequence - 1, frame: frame, plan: plan)
                        } catch {
                            queue.put(.failed(error), at: t.sequence)
                            t.sequence += 1
                            t.over = true
                        }
                    }
                }
                return nil
            }
        }
        @Sendable func compose(with compositor: Compositor) {
            while let work = next() {
                do {
                    // A clip's frame that is the video's frame as it is goes straight to a
                    // yuv420p sink, copied: composing would give the same frame up to the
                    // rounding of an RGBA round trip.
                    if let yuv = work.frame.yuv, try FramePipeline.copied(work.plan, from: storyboard, into: yuv, for: output) {
                        copies.withLock { $0 += 1 }
                        queue.put(.frame(work.plan.index, work.frame), at: work.sequence)
                        continue
                    }
                    // Pictures not made yet are made (or waited for) first: that time is
                    // preparing the inputs, not composing.
                    let wait = DispatchTime.now()
                    let images = try storyboard.images(for: work.plan, threads: threads)
                    waitTime.add(Exporter.seconds(since: wait))
                    composeTime.begin()
                    do {
                        defer { composeTime.end() }
                        let items = work.plan.scene.drawList(scale: canvas.scale, images: images)
                        try work.frame.yuv?.prepare(for: output)
                        let refusals = FrameRefusals()
                        FrameRefusals.$current.withValue(refusals) { compositor.render(items, canvas: canvas, into: work.frame) }
                        if let reason = refusals.first {
                            throw ExportError.refusedFrame(frame: work.plan.index, seconds: storyboard.timeline.fps.time(ofFrame: work.plan.index), reason: reason)
                        }
                    }
                    queue.put(.frame(work.plan.index, work.frame), at: work.sequence)
                } catch {
                    stop.cancel()   // no more frames are taken
                    queue.put(.failed(error), at: work.sequence)
                }
            }
        }
        let yielding = yielding
        let producer = Threads.start(.composing, yielding: yielding, stackSize: 1 << 22) {
            // The other workers are made here, so that they take this thread's priority
            // (Dispatch's shared threads would not).
            let helpers = (1..<workers).map { w in
                Threads.start(.composingHelper, stackSize: 1 << 22) { compose(with: Compositor(threads: share(w))) }
            }
            compose(with: Compositor(threads: share(0)))
            helpers.forEach { $0.join() }
            queue.put(.end, at: turn.withLock { $0.sequence })
        }
        // Every way out below has taken the producer's end first (or drained up to it).
        defer { producer.join() }

        var outcome = Outcome(composeSeconds: 0, waitSeconds: 0)
        var done = 0
        var last: FrameBuffer?
        var ended = false
        do {
            loop: while true {
                if cancellation?.isCancelled == true { throw ExportError.cancelled }
                let shown: Int
                switch queue.take() {
                case let .frame(index, frame):
                    try sink.write(frame, index: index, repeated: false)
                    if let last { pool.put(last) }
                    last = frame
                    outcome.composed += 1
                    shown = index
                case let .repeatLast(index):
                    try sink.write(last!, index: index, repeated: true)
                    shown = index
                case let .failed(error):
                    throw error   // the workers stop; the rest is drained below
                case .end:
                    ended = true
                    if cancellation?.isCancelled == true { throw ExportError.cancelled }
                    break loop
                }
                storyboard.didShow(shown)
                done += 1
                progress(done)
            }
            try sink.finish()
        } catch {
            stop.cancel()
            pool.wakeAll()
            if !ended { FramePipeline.drain(queue) }   // let the producer finish, unless it already has
            sink.abort()
            throw error
        }
        outcome.copied = copies.withLock { $0 }
        outcome.composed -= outcome.copied
        outcome.composeSeconds = composeTime.seconds
        outcome.waitSeconds = waitTime.value
        return outcome
    }

    private static func drain(_ queue: SequencedQueue<Message>) {
        while true { if case .end = queue.take() { return } }
    }

    /// Writes `plan`'s frame into `yuv` straight from its clip when it is one clip picture
    /// alone (`Storyboard.soleClipPicture`) already in the encoder's yuv420p: the decoded frame
    /// is copied as it is, and no RGBA picture is made, drawn and converted back. False, with
    /// nothing written, for any other frame.
    static func copied(_ plan: FramePlan, from storyboard: Storyboard, into yuv: YUVFrame, for output: String) throws -> Bool {
        guard let picture = try storyboard.soleClipPicture(of: plan) else { return false }
        try yuv.prepare(for: output)
        return picture.copy(into: yuv.planes!, width: storyboard.canvas.width, height: storyboard.canvas.height)
    }
}
