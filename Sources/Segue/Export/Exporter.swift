import Dispatch
import Foundation
import Synchronization

/// How far an export has come.
public struct ExportProgress: Sendable {
    /// Frames written so far.
    public var framesDone: Int
    /// Frames the export writes in all.
    public var frameCount: Int
    /// Seconds since the export started.
    public var elapsed: Double
}

/// What an export did.
public struct ExportResult: Sendable {
    public var output: String
    public var format: OutputFormat
    public var frameCount: Int
    /// Frames actually composed; the rest repeated the frame before them (still holds).
    public var framesComposed: Int
    /// Seconds spent composing those frames (on the rendering thread, beside the encoder).
    public var composeSeconds: Double
    /// Seconds spent decoding and resampling the inputs before the first frame, and waiting
    /// for (or making) the still pictures of a frame that its composing thread found not
    /// yet made (a transition's incoming picture, made beside the export, at the very start).
    public var prepareSeconds: Double
    public var seconds: Double
    /// True when `--resume` found the output already made from the same fingerprint and
    /// kept it: nothing was rendered.
    public var skipped = false
    /// The job's fingerprint, when it was computed (outputs that keep one, `--resume`).
    public var fingerprint: String?
}

/// A job's pages, the screens its transition shows them on, and the scene of any frame.
///
/// Pages hold references to the inputs (`Picture`), resolved when a frame is composed
/// through `pictures`: each input decoded once, each part resampled once per size it is
/// drawn at. The first screen's pictures are ready when the storyboard is made; the other
/// screens' are made on a thread of their own meanwhile, in order, so the encoder starts on
/// the first hold at once and a picture is waited for only if it is needed before it is
/// ready. Once every screen is prepared, the full-size pixels are let go.
public final class Storyboard: Sendable {
    public let canvas: Canvas
    public let timeline: Timeline
    /// The preset's transition, which runs the whole video unless there is a plan.
    public let transition: any Transition
    /// Each slide's hold, motion and cut, for a story.
    public let plan: StoryPlan?
    public let pictures: PictureCache
    /// One full-screen page per input.
    public let pages: [Layer]
    private let stop = Cancellation()
    /// The clip slides' feeds, by slide, and the first and last frame each is drawn on.
    private let feeds: [(slide: Int, feed: ClipFeed, frames: ClosedRange<Int>)]
    private let clipSlides: Set<Int>
    /// Which screens to have ready: the screen being composed and how far ahead to prepare
    /// (two screens), moved on by `willCompose`; the worker waits on `wake` for more.
    private let schedule = Locked((current: -1, wanted: 0))
    private let wake = DispatchSemaphore(value: 0)
    /// The still sources each screen draws (set once the screens are known, in init).
    private let screenSources = Locked<[Set<Int>]>([])

    /// The storyboard of `job`; its clips' feeds decode for the frames the job writes.
    /// With `yielding`, the thread that prepares screens beside the export runs at a lower
    /// priority (`Yielding`): set for an MP4, whose encoder sets the pace.
    public convenience init(job: Job, yielding: Bool = false) throws {
        // Each distinct still is decoded once; stills are decoded in parallel. A clip is its
        // own source, decoded as it plays (the same file twice is two parts of it).
        let inputs = job.inputs, clips = job.clips
        let stills = inputs.indices.filter { clips[$0] == nil }
        let paths = Array(Set(stills.map { inputs[$0] })).sorted()
        // The stills the first frame shows are decoded now, with those whose upright size
        // their header does not tell (layout needs every size); a JPEG that says it is
        // decoded when a screen first needs it, beside the encoder, so that encoding starts
        // sooner and fewer full-size pictures are held at once.
        let firstShown: Set<String>
        if job.timeline.screenCount == inputs.count, let first = job.frameIndices(count: job.timeline.frameCount).first {
            switch job.timeline.moment(at: first) {
            case let .hold(screen): firstShown = [inputs[screen]]
            case let .transition(step, _, _): firstShown = [inputs[step], inputs[min(step + 1, inputs.count - 1)]]
            }
        } else {
            firstShown = Set(paths)
        }
        let told = Dictionary(uniqueKeysWithValues: paths.filter { !firstShown.contains($0) }.compactMap { path in
            ImageHeader.uprightJPEGSize(of: path).map { (path, Size(width: Double($0.width), height: Double($0.height))) }
        })
        let now = paths.filter { told[$0] == nil }
        // Fewer stills than threads (often the first photo alone): each converts on a share of them.
        let decoded = try parallelMap(now, threads: job.threads) {
            try Image.decode(path: $0, limits: job.limits, threads: max(1, job.threads / now.count))
        }
        let byPath = Dictionary(uniqueKeysWithValues: zip(now, decoded))
        let limits = job.limits, threads = job.threads
        let sizeOf = { (path: String) -> Size in byPath[path]?.size ?? told[path]! }
        // An input named twice is one source: its first place.
        let sources = inputs.indices.map { i in clips[i] != nil ? i : stills.first { inputs[$0] == inputs[i] }! }
        let preloaded = Set(sources).filter { clips[$0] == nil }.compactMap { source in byPath[inputs[source]].map { (source, $0) } }
        let cache = PictureCache(preloaded: Dictionary(uniqueKeysWithValues: preloaded)) { source in
            let path = inputs[source]
            let image = try Image.decode(path: path, limits: limits, threads: threads)
            // Laid out by the size its header told: a file changed since cannot be drawn as planned.
            if let expected = told[path], expected != image.size {
                throw ExportError.unreadableImage(path: path, reason: "it changed while the video was made (\(Int(expected.width))x\(Int(expected.height)) when read first, \(image.width)x\(image.height) now)")
            }
            return image
        }
        let sizes = inputs.indices.map { clips[$0]?.info.size ?? sizeOf(inputs[$0]) }
        self.init(sizes: sizes, sources: sources, pictures: cache, preset: job.preset, plan: job.plan, timeline: job.timeline,
                  threads: job.threads, clips: clips, frames: job.frameIndices(count: job.timeline.frameCount), limits: limits,
                  yielding: yielding)
    }

    /// A storyboard over images already in memory, input k being `images[k]`.
    public convenience init(images: [Image], preset: Preset, threads: Int = 2) {
        self.init(sizes: images.map(\.size), sources: Array(images.indices), pictures: PictureCache(images), preset: preset,
                  plan: nil, timeline: preset.timeline(screens: preset.screenCount(inputs: images.count)), threads: threads)
    }

    private init(sizes: [Size], sources: [Int], pictures: PictureCache, preset: Preset, plan: StoryPlan?, timeline: Timeline, threads: Int,
                 clips: [Int: ClipSlide] = [:], frames: [Int] = [], limits: Limits = Limits(), yielding: Bool = false) {
        let canvas = preset.canvas
        self.canvas = canvas
        self.pictures = pictures
        self.plan = plan
        self.timeline = timeline
        transition = preset.transition.transition
        pages = zip(sources, sizes).map { source, size -> Layer in
            var page = Layer(frame: canvas.bounds)
            page.contents = Picture(source: source, size: size)
            page.contentsGravity = preset.fit
            page.backgroundColor = canvas.background
            page.name = "page"
            return page
        }
        clipSlides = Set(clips.keys)
        // Each clip's feed learns every frame its slide is drawn on, and at what size.
        var requests: [Int: [ClipFeed.Request]] = [:]
        var drawn: [Int: ClosedRange<Int>] = [:]
        if !clips.isEmpty {
            for index in frames {
                let visible: [Int]
                switch timeline.moment(at: index) {
                case let .hold(screen): visible = [screen]
                case let .transition(step, _, _): visible = [step, step + 1]
                }
                for slide in visible where clips[slide] != nil {
                    let page = Storyboard.page(pages[slide], slide, at: Double(index) / Double(timeline.fps), timeline: timeline, plan: plan, isClip: true)
                    let keys = PictureCache.keys(in: page, scale: canvas.scale).filter { $0.source == slide }
                    guard let time = keys.first?.time else { continue }
                    requests[slide, default: []].append(ClipFeed.Request(time: time, keys: Array(Set(keys))))
                    drawn[slide] = (drawn[slide]?.lowerBound ?? index)...index
                }
            }
        }
        feeds = requests.keys.sorted().map { slide in
            let feed = ClipFeed(clip: clips[slide]!, requests: requests[slide]!, limits: limits, threads: threads)
            pictures.attach(feed, source: slide)
            return (slide, feed, drawn[slide]!)
        }
        let count = timeline.screenCount
        // Every still picture the screens draw, by source: a source's full-size pixels go once all are made.
        let screenKeys = (0..<count).map { PictureCache.keys(in: screen($0), scale: canvas.scale).filter { !pictures.isClip($0.source) } }
        screenSources.withLock { $0 = screenKeys.map { Set($0.map(\.source)) } }
        let keysBySource = Dictionary(grouping: screenKeys.joined(), by: \.source).mapValues(Set.init)
        willCompose(frames.first ?? 0)
        let first = schedule.withLock { $0.current }
        try? pictures.prepare(screen(first), scale: canvas.scale, threads: threads)
        pictures.releaseSources(whoseKeysAreReady: keysBySource)
        // The screens after it are prepared one by one beside the export, as it comes near them.
        // It holds the storyboard only while it prepares, so that a storyboard let go (an
        // export done or stopped) ends it.
        let schedule = self.schedule, wake = self.wake, stop = self.stop
        let worker = Thread { [weak self] in
            if yielding { Yielding.lowerThisThread() }
            for index in (first + 1)..<max(first + 1, count) {
                while schedule.withLock({ $0.wanted }) < index && !stop.isCancelled { wake.wait() }
                guard !stop.isCancelled, let board = self else { return }
                try? board.pictures.prepare(board.screen(index), scale: board.canvas.scale, threads: 1)
                board.pictures.releaseSources(whoseKeysAreReady: keysBySource)
            }
        }
        worker.start()
    }

    deinit {
        stop.cancel()
        wake.signal()
        for entry in feeds { entry.feed.stop() }
    }

    /// Screens prepared ahead of the one being composed. Two: a decode and a resample take a
    /// few tenths of a second, a short hold and its transition about as long to encode.
    static let screensAhead = 2

    /// Readies the clips for frame `index`, about to be composed: a clip starts decoding a
    /// second before its slide is first drawn, and lets go of its frames after the last.
    ///
    /// The screens (still pictures) ahead of it are prepared as it comes near them, and the
    /// pictures only screens before it draw are let go: the timeline shows screens in order,
    /// so those are not drawn again (if they are, for frames asked out of order, they are
    /// made again).
    public func willCompose(_ index: Int) {
        for entry in feeds {
            if index > entry.frames.upperBound { entry.feed.stop() }
            else if index + timeline.fps >= entry.frames.lowerBound { entry.feed.start() }
        }
        let screen: Int
        switch timeline.moment(at: index) {
        case let .hold(s): screen = s
        case let .transition(step, _, _): screen = step
        }
        let moved = schedule.withLock { state -> Bool in
            guard screen > state.current else { return false }
            state.current = screen
            state.wanted = max(state.wanted, screen + Storyboard.screensAhead)
            return true
        }
        guard moved else { return }
        wake.signal()
        let passed = screenSources.withLock { sources -> Set<Int> in
            guard screen > 0, screen < sources.count else { return [] }
            let needed = sources[screen...].reduce(into: Set<Int>()) { $0.formUnion($1) }
            return sources[..<screen].reduce(into: Set<Int>()) { $0.formUnion($1) }.subtracting(needed)
        }
        pictures.forget(sources: passed)
    }

    /// Still screen `index` (for a story, slide `index` at the start of its hold).
    public func screen(_ index: Int) -> Layer {
        guard plan != nil else { return transition.screen(index, pages: pages, bounds: canvas.bounds) }
        let onScreen = timeline.timeOnScreen(index)
        return page(index, at: index == 0 ? 0 : onScreen.lowerBound + timeline.durations[index - 1])
    }

    /// Slide `index` of a story at `time` seconds: a clip at its time, moved by its motion.
    func page(_ index: Int, at time: Double) -> Layer {
        Storyboard.page(pages[index], index, at: time, timeline: timeline, plan: plan, isClip: clipSlides.contains(index))
    }

    /// `page` (slide `index`) at `time`: a clip shows the time since its slide first came on
    /// screen (the start of its incoming transition).
    private static func page(_ page: Layer, _ index: Int, at time: Double, timeline: Timeline, plan: StoryPlan?, isClip: Bool) -> Layer {
        var page = page
        let span = timeline.timeOnScreen(index)
        if isClip { page.contents?.time = max(0, time - span.lowerBound) }
        guard let plan, !plan.motions[index].isStill else { return page }
        let t = span.upperBound > span.lowerBound ? (time - span.lowerBound) / (span.upperBound - span.lowerBound) : 0
        return page.moving(plan.motions[index], at: t)
    }

    /// The scene of frame `index`.
    public func scene(at index: Int) -> Layer {
        let moment = timeline.moment(at: index)
        guard plan != nil else { return scene(moment) }
        let time = Double(index) / Double(timeline.fps)
        switch moment {
        case let .hold(screen):
            return .root(canvas.bounds, [page(screen, at: time)])
        case let .transition(step, progress, _):
            return plan!.cuts[step].transition.cut(from: page(step, at: time), to: page(step + 1, at: time), progress: progress, bounds: canvas.bounds)
        }
    }

    /// What frame `index` shows when it is a still (a hold whose slide does not move), so that
    /// equal stills are composed once; nil for a frame that must be composed.
    public func still(at index: Int) -> Moment? {
        let moment = timeline.moment(at: index)
        guard case let .hold(screen) = moment, !clipSlides.contains(screen) else { return nil }
        if let plan, !plan.motions[screen].isStill { return nil }
        return moment
    }

    /// The scene of a moment of the timeline, for a video the preset's transition runs.
    public func scene(_ moment: Moment) -> Layer {
        switch moment {
        case let .hold(index):
            return .root(canvas.bounds, [screen(index)])
        case let .transition(step, progress, _):
            return transition.scene(step: step, progress: progress, pages: pages, bounds: canvas.bounds)
        }
    }
}

/// Runs jobs: composes frames on `job.threads` threads, each a whole frame, a few frames
/// ahead, while the calling thread hands them to the sink (the encoder) in order, so
/// rendering and encoding overlap and memory stays flat however long the video is.
public enum Exporter {
    /// Frames composed ahead of the encoder.
    static let queueDepth = 2
    /// Frames composed at once, at most: each holds a frame buffer (8 MB at 1080x1920 for
    /// sinks that read RGBA) and the clip pictures it draws, so memory would grow with the
    /// threads; more threads than this draw each frame's bands together.
    static let framesAtOnce = 4

    /// Exports a job. `progress` is called on the calling thread after each frame is written;
    /// cancelling `cancellation` (from any thread, a signal handler's queue say) stops the
    /// export within a frame, removes what it wrote and throws `ExportError.cancelled`.
    ///
    /// With `job.resume`, an output that keeps the job's fingerprint is left as it is and the
    /// result says `skipped`. `fingerprint` may pass the job's fingerprint when the caller
    /// has already computed it.
    @discardableResult
    public static func run(_ job: Job, fingerprint known: String? = nil, cancellation: Cancellation? = nil,
                           progress: ((ExportProgress) -> Void)? = nil) throws -> ExportResult {
        let start = DispatchTime.now()
        try job.validate()
        // An MP4 always carries its fingerprint (in its metadata), so a later --resume can
        // trust it; the other outputs keep theirs in a hidden file, written only with --resume.
        let keepsFingerprint = job.format == .mp4 || (job.resume && job.output != "-" && job.format != .null)
        let fingerprint = try keepsFingerprint ? known ?? Fingerprint.of(job) : nil
        if job.resume, let fingerprint, Fingerprint.stored(output: job.output, format: job.format) == fingerprint {
            return ExportResult(output: job.output, format: job.format, frameCount: job.frameIndices(count: job.timeline.frameCount).count,
                                framesComposed: 0, composeSeconds: 0, prepareSeconds: 0, seconds: seconds(since: start),
                                skipped: true, fingerprint: fingerprint)
        }
        // An MP4's encoder sets the pace (x264's lookahead runs on this thread): the threads
        // that compose and prepare ahead of it yield to it, and take the time it leaves.
        let yielding = job.format == .mp4
        let storyboard = try Storyboard(job: job, yielding: yielding)
        let prepareSeconds = seconds(since: start)
        if cancellation?.isCancelled == true { throw ExportError.cancelled }
        let timeline = storyboard.timeline
        let indices = job.frameIndices(count: timeline.frameCount)
        let sink = try makeSink(job, fingerprint: fingerprint)

        // Frames are composed side by side, each whole by one thread (`job.threads` of them),
        // rather than each cut in bands that all threads draw: no thread waits for another
        // within a frame, so none is woken per frame (tens of microseconds in a virtual
        // machine, a tenth of a fast transition's frame), and the per-frame serial work (scene,
        // draw list) runs beside another frame's drawing. A single frame still uses them all,
        // and so do each frame's bands when there are more threads than `framesAtOnce`.
        let workers = max(1, min(job.threads, framesAtOnce, indices.count))
        // Worker w draws its frames' bands on its share of the threads.
        let share: @Sendable (Int) -> Int = { w in job.threads / workers + (w < job.threads % workers ? 1 : 0) }
        // The sink takes frames in order, at most `queueDepth` ahead of the one it writes.
        let queue = SequencedQueue<Message>(window: queueDepth)
        // At most `frames` frame buffers: one the sink holds, those queued and one per worker;
        // made as first needed (the first frame does not wait for the others' memory), then
        // handed back and forth through `pool`.
        let frames = queueDepth + workers + 1
        let form = sink.reads
        let pool = BlockingQueue<FrameBuffer>(capacity: frames)
        let stop = Cancellation()
        let composeTime = BusyClock(), waitTime = Accumulator()
        // What the workers take their frames from, one worker at a time and in the frames'
        // order: the storyboard moves on (clips, screens ahead, pictures let go), and each
        // frame's pictures are resolved, exactly as for one thread; the drawing runs apart.
        struct Turn {
            var position = 0
            var sequence = 0
            var previous: Moment?
            var made = 0
            var over = false
        }
        struct Work {
            var index: Int
            var sequence: Int
            var frame: FrameBuffer
            var items: [DrawItem]
        }
        let turn = Locked(Turn())
        let canvas = storyboard.canvas
        // The next frame to draw, or nil when there is none (or composing stopped).
        @Sendable func next() -> Work? {
            turn.withLock { t -> Work? in
                while !t.over && t.position < indices.count {
                    if stop.isCancelled || cancellation?.isCancelled == true { t.over = true; break }
                    let index = indices[t.position]
                    t.position += 1
                    storyboard.willCompose(index)
                    let still = storyboard.still(at: index)
                    if let still, still == t.previous {
                        queue.put(.repeatLast(index), at: t.sequence)
                        t.sequence += 1
                        continue
                    }
                    do {
                        let frame: FrameBuffer
                        if t.made < frames {
                            t.made += 1
                            frame = try FrameBuffer(width: canvas.width, height: canvas.height, readAs: form, for: job.output)
                        } else {
                            guard let taken = pool.take(unless: stop) else { t.over = true; break }
                            frame = taken
                        }
                        composeTime.begin()
                        let scene = storyboard.scene(at: index)
                        composeTime.end()
                        // Pictures not made yet are made (or waited for) first: that time is
                        // preparing the inputs, not composing.
                        let wait = DispatchTime.now()
                        try storyboard.pictures.prepare(scene, scale: canvas.scale, threads: job.threads)
                        waitTime.add(seconds(since: wait))
                        composeTime.begin()
                        let items: [DrawItem]
                        do { items = try scene.drawList(scale: canvas.scale, pictures: storyboard.pictures) } catch {
                            composeTime.end()
                            throw error
                        }
                        t.previous = still
                        t.sequence += 1
                        return Work(index: index, sequence: t.sequence - 1, frame: frame, items: items)
                    } catch {
                        queue.put(.failed(error), at: t.sequence)
                        t.sequence += 1
                        t.over = true
                    }
                }
                return nil
            }
        }
        @Sendable func compose(with compositor: Compositor) {
            while let work = next() {
                do {
                    try work.frame.yuv?.prepare(for: job.output)
                    compositor.render(work.items, canvas: canvas, into: work.frame)
                    composeTime.end()
                    queue.put(.frame(work.index, work.frame), at: work.sequence)
                } catch {
                    composeTime.end()
                    stop.cancel()   // no more frames are taken
                    queue.put(.failed(error), at: work.sequence)
                }
            }
        }
        let producer = Thread {
            if yielding { Yielding.lowerThisThread() }
            // The other workers are made here, so that they take this thread's priority
            // (Dispatch's shared threads would not).
            let finished = DispatchSemaphore(value: 0)
            for w in 1..<workers {
                let helper = Thread {
                    compose(with: Compositor(threads: share(w)))
                    finished.signal()
                }
                helper.stackSize = 1 << 22
                helper.start()
            }
            compose(with: Compositor(threads: share(0)))
            for _ in 1..<workers { finished.wait() }
            queue.put(.end, at: turn.withLock { $0.sequence })
        }
        producer.stackSize = 1 << 22
        producer.start()

        var composed = 0, done = 0
        var last: FrameBuffer?
        var ended = false
        do {
            loop: while true {
                if cancellation?.isCancelled == true { throw ExportError.cancelled }
                switch queue.take() {
                case let .frame(index, frame):
                    try sink.write(frame, index: index, repeated: false)
                    if let last { pool.put(last) }
                    last = frame
                    composed += 1
                case let .repeatLast(index):
                    try sink.write(last!, index: index, repeated: true)
                case let .failed(error):
                    throw error   // the workers stop; the rest is drained below
                case .end:
                    ended = true
                    if cancellation?.isCancelled == true { throw ExportError.cancelled }
                    break loop
                }
                done += 1
                progress?(ExportProgress(framesDone: done, frameCount: indices.count, elapsed: seconds(since: start)))
            }
            try sink.finish()
        } catch {
            stop.cancel()
            pool.wakeAll()
            if !ended { drain(queue) }   // let the producer finish, unless it already has
            sink.abort()
            throw error
        }
        return ExportResult(output: job.output, format: job.format, frameCount: indices.count,
                            framesComposed: composed, composeSeconds: composeTime.seconds, prepareSeconds: prepareSeconds + waitTime.value,
                            seconds: seconds(since: start), fingerprint: fingerprint)
    }

    static func makeSink(_ job: Job, fingerprint: String?) throws -> FrameSink {
        let canvas = job.preset.canvas
        // --resume replaces an output made from another fingerprint, as --force does.
        let replace = job.overwrite || job.resume
        switch job.format {
        case .mp4:
            return try MP4Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps, encode: job.preset.encode,
                               audio: job.preset.audio, clipSounds: job.clipSounds, frames: job.timeline.frameCount, fingerprint: fingerprint, replace: replace)
        case .png:
            return try PNGSink(folder: job.output, fingerprint: fingerprint, replace: replace)
        case .framemd5:
            return try FrameMD5Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps,
                                    fingerprint: fingerprint, replace: replace)
        case .yuv:
            return try YUVSink(path: job.output, width: canvas.width, height: canvas.height, fingerprint: fingerprint, replace: replace)
        case .sheet:
            return try SheetSink(path: job.output, frameWidth: canvas.width, frameHeight: canvas.height,
                                 fingerprint: fingerprint, replace: replace)
        case .null:
            return NullSink()
        }
    }

    private static func drain(_ queue: SequencedQueue<Message>) {
        while true { if case .end = queue.take() { return } }
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    enum Message {
        case frame(Int, FrameBuffer)
        /// The frame equals the one before it (a still hold): nothing new was composed.
        case repeatLast(Int)
        /// Composing failed (a picture could not be read); `.end` follows.
        case failed(Error)
        case end
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
