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
/// Frame N goes through four stages, all in this file (`FrameRun`):
/// 1. **plan**, in the frames' order, under the run's one lock, a few frames ahead of those
///    drawn (`planAhead`): the resources take the schedule's steps due before N
///    (`FrameResources.willPlan`: a clip opened, screens prepared, overlays drawn ahead); a
///    still hold that shows what the frame before shows repeats it; any other frame has its
///    scene built, its contents planned and its clip pictures asked of their feeds
///    (`FrameResources.plan`, what `Storyboard.scene(at:)` says N shows).
/// 2. **resolve**, on the thread that took N, apart from the others: its pictures waited for,
///    or made now if they are not ready (`FrameResources.images`); a frame that is one clip
///    picture filling the canvas unchanged is copied instead (`Storyboard.soleClipPicture`).
/// 3. **render**: the scene's draw list drawn into one of the run's frame buffers.
/// 4. **sink**, on the calling thread: N written in its place in the sequence (a
///    `SequencedQueue`), and the schedule's steps due once N is shown taken
///    (`FrameResources.didShow`: a clip closed, passed screens' pictures let go).
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

    let frames: PreparedFrames
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

    /// Composes every frame into `sink` (`write` for each, in order, then `finish`); on an
    /// error or a cancellation the sink is aborted and the error thrown.
    func run(into sink: FrameSink, cancellation: Cancellation?, progress: (Int) -> Void) throws -> Outcome {
        let run = FrameRun(self, reads: sink.reads, cancellation: cancellation)
        let workers = run.workers, threads = threads
        // Worker w draws its frames' bands on its share of the threads.
        let share: @Sendable (Int) -> Int = { w in threads / workers + (w < threads % workers ? 1 : 0) }
        let producer = Threads.start(.composing, yielding: yielding, stackSize: 1 << 22) {
            // The other workers are made here, so that they take this thread's priority
            // (Dispatch's shared threads would not).
            let helpers = (1..<workers).map { w in
                Threads.start(.composingHelper, stackSize: 1 << 22) { run.compose(with: Compositor(threads: share(w))) }
            }
            run.compose(with: Compositor(threads: share(0)))
            helpers.forEach { $0.join() }
            run.end()
        }
        // Every way out below has taken the producer's end first (or drained up to it).
        defer { producer.join() }
        return try run.write(into: sink, progress: progress)
    }
}

/// One run of a `FramePipeline`: the state its stages share, and the stages.
private final class FrameRun: Sendable {
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

    /// The plan stage's state, under `turn`.
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

    /// A frame planned and taken by a worker, with the buffer it is drawn into.
    private struct Work {
        var sequence: Int
        var frame: FrameBuffer
        var plan: FramePlan
    }

    let workers: Int
    private let storyboard: Storyboard
    private let resources: FrameResources
    private let indices: [Int]
    private let threads: Int
    private let output: String
    private let form: FrameForm
    private let cancellation: Cancellation?
    private let queue = SequencedQueue<Message>(window: FramePipeline.queueDepth)
    /// At most `buffers` frame buffers: one the sink holds, those queued and one per worker;
    /// made as first needed (the first frame does not wait for the others' memory), then
    /// handed back and forth through `pool`.
    private let buffers: Int
    private let pool: BlockingQueue<FrameBuffer>
    private let stop = Cancellation()
    private let composeTime = BusyClock(), waitTime = Accumulator(), copies = Locked(0)
    private let turn = Locked(Turn())

    init(_ pipeline: FramePipeline, reads form: FrameForm, cancellation: Cancellation?) {
        storyboard = pipeline.frames.storyboard
        resources = pipeline.frames.resources
        indices = pipeline.indices
        threads = pipeline.threads
        output = pipeline.output
        self.form = form
        self.cancellation = cancellation
        workers = max(1, min(threads, FramePipeline.framesAtOnce, indices.count))
        buffers = FramePipeline.queueDepth + workers + 1
        pool = BlockingQueue(capacity: buffers)
    }

    // MARK: 1. plan

    /// Plans frames until `planAhead` are waiting (or none is left).
    private func plan(_ t: inout Turn) {
        while t.planned.count <= FramePipeline.planAhead && t.position < indices.count {
            let index = indices[t.position]
            t.position += 1
            resources.willPlan(index)
            let still = storyboard.still(at: index)
            if let still, still == t.previous {
                t.planned.append(.repeatLast(index))
                continue
            }
            t.previous = still
            composeTime.begin()
            t.planned.append(.frame(resources.plan(index, of: storyboard)))
            composeTime.end()
        }
    }

    /// The next frame to draw, with a buffer to draw it in, or nil when there is none (or
    /// composing stopped); repeats planned before it are queued for the sink on the way.
    private func next() -> Work? {
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
                        if t.made < buffers {
                            t.made += 1
                            frame = try FrameBuffer(width: storyboard.canvas.width, height: storyboard.canvas.height, readAs: form, for: output)
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

    /// A worker's loop: takes planned frames and resolves and renders each into the queue.
    func compose(with compositor: Compositor) {
        while let work = next() {
            do {
                if try copied(work) {
                    copies.withLock { $0 += 1 }
                } else {
                    try render(work, resolve(work), with: compositor)
                }
                queue.put(.frame(work.plan.index, work.frame), at: work.sequence)
            } catch {
                stop.cancel()   // no more frames are taken
                queue.put(.failed(error), at: work.sequence)
            }
        }
    }

    /// The producer's last word: every frame has been queued (or composing stopped).
    func end() {
        queue.put(.end, at: turn.withLock { $0.sequence })
    }

    // MARK: 2. resolve

    /// Whether `work`'s frame was written straight from its clip: one clip picture alone
    /// (`Storyboard.soleClipPicture`) already in a yuv420p sink's format, whose decoded frame
    /// is copied as it is, with no RGBA picture made, drawn and converted back (that would
    /// give the same frame up to the rounding of the round trip). False, with nothing
    /// written, for any other frame.
    private func copied(_ work: Work) throws -> Bool {
        guard let yuv = work.frame.yuv, work.plan.samples.isEmpty, let picture = try storyboard.soleClipPicture(of: work.plan) else { return false }
        try yuv.prepare(for: output)
        return picture.copy(into: yuv.planes!, width: storyboard.canvas.width, height: storyboard.canvas.height)
    }

    /// The pictures `work`'s frame draws, made or waited for now if they are not ready: that
    /// time is preparing the inputs, not composing.
    private func resolve(_ work: Work) throws -> [PictureKey: Image] {
        let wait = DispatchTime.now()
        defer { waitTime.add(Exporter.seconds(since: wait)) }
        return try resources.images(for: work.plan, threads: threads)
    }

    // MARK: 3. render

    /// Draws `work`'s frame from `images` into its buffer.
    private func render(_ work: Work, _ images: [PictureKey: Image], with compositor: Compositor) throws {
        composeTime.begin()
        defer { composeTime.end() }
        let canvas = storyboard.canvas
        let lists = work.plan.drawLists(scale: canvas.scale, images: images)
        try work.frame.yuv?.prepare(for: output)
        let refusals = FrameRefusals()
        FrameRefusals.$current.withValue(refusals) { compositor.render(meanOf: lists, canvas: canvas, into: work.frame) }
        if let reason = refusals.first {
            throw ExportError.refusedFrame(frame: work.plan.index, seconds: storyboard.timeline.fps.time(ofFrame: work.plan.index), reason: reason)
        }
    }

    // MARK: 4. sink

    /// Writes the frames into `sink` in their order as they come, then finishes it; on an
    /// error or a cancellation stops the workers, drains the queue and aborts the sink.
    func write(into sink: FrameSink, progress: (Int) -> Void) throws -> FramePipeline.Outcome {
        var outcome = FramePipeline.Outcome(composeSeconds: 0, waitSeconds: 0)
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
                resources.didShow(shown)
                done += 1
                progress(done)
            }
            try sink.finish()
        } catch {
            stop.cancel()
            pool.wakeAll()
            if !ended { drain() }   // let the producer finish, unless it already has
            sink.abort()
            throw error
        }
        outcome.copied = copies.withLock { $0 }
        outcome.composed -= outcome.copied
        outcome.composeSeconds = composeTime.seconds
        outcome.waitSeconds = waitTime.value
        return outcome
    }

    private func drain() {
        while true { if case .end = queue.take() { return } }
    }
}
