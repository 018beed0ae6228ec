import Dispatch
import Foundation

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
    /// Seconds spent decoding and resampling the inputs before the first frame.
    public var prepareSeconds: Double
    public var seconds: Double
    /// True when `--resume` found the output already made from the same fingerprint and
    /// kept it: nothing was rendered.
    public var skipped = false
    /// The job's fingerprint, when it was computed (outputs that keep one, `--resume`).
    public var fingerprint: String?
}

/// The inputs of a job, decoded once and resampled once to the size they are drawn at, the
/// screens the transition shows them on, and the scene of any frame.
///
/// The first screen is ready when the storyboard is made; the others are resampled on a
/// thread of their own meanwhile, in order, so the encoder starts on the first hold at once
/// and a screen is waited for only if it is needed before it is ready.
public final class Storyboard: @unchecked Sendable {
    public let canvas: Canvas
    public let timeline: Timeline
    public let transition: any Transition
    private let screens: ScreenBaker

    public convenience init(job: Job) throws {
        // Each distinct file is decoded once; files are decoded in parallel.
        let paths = Array(Set(job.inputs)).sorted()
        let decoded = try parallelMap(paths, threads: job.threads) { try Image.decode(path: $0, limits: job.limits) }
        let byPath = Dictionary(uniqueKeysWithValues: zip(paths, decoded))
        self.init(images: job.inputs.map { byPath[$0]! }, preset: job.preset, threads: job.threads)
    }

    public init(images: [Image], preset: Preset, threads: Int = 2) {
        let canvas = preset.canvas
        self.canvas = canvas
        let transition = preset.transition.choice.transition
        self.transition = transition
        let pages = images.map { image -> Layer in
            var page = Layer(frame: canvas.bounds)
            page.contents = image
            page.contentsGravity = preset.fit
            page.backgroundColor = preset.canvas.background
            page.name = "page"
            return page
        }
        screens = ScreenBaker(transition.screens(pages: pages, bounds: canvas.bounds), scale: canvas.scale, threads: threads)
        timeline = preset.timeline(screens: screens.count)
    }

    deinit { screens.stop() }

    /// Still screen `index`, its images resampled (waiting for them if need be).
    public func screen(_ index: Int) -> Layer { screens[index] }

    /// The scene of a moment of the timeline.
    public func scene(_ moment: Moment) -> Layer {
        switch moment {
        case let .hold(index):
            return .root(canvas.bounds, [screen(index)])
        case let .transition(step, progress, _):
            return transition.scene(step: step, progress: progress, from: screen(step), to: screen(step + 1), bounds: canvas.bounds)
        }
    }
}

/// Resamples every image of some layer trees once, to the pixels its layer covers at rest
/// (bounds x scale), cropped as its contents gravity crops it; an image drawn at the same
/// size twice is resampled once. The first tree is done at once, its images in parallel;
/// the rest on a background thread, tree by tree.
final class ScreenBaker: @unchecked Sendable {
    let scale: Double
    let count: Int
    private let condition = NSCondition()
    private var raw: [Layer?]
    private var baked: [Layer?]
    private var cache: [Key: Image] = [:]
    private var stopped = false

    private struct Key: Hashable {
        let image: ObjectIdentifier
        let source: Rect
        let width: Int, height: Int
    }

    init(_ trees: [Layer], scale: Double, threads: Int) {
        self.scale = scale
        count = trees.count
        raw = trees
        baked = Array(repeating: nil, count: trees.count)
        guard !trees.isEmpty else { return }
        bake(0, threads: threads)
        guard trees.count > 1 else { return }
        let worker = Thread { [self] in
            for i in 1..<count {
                condition.lock()
                let stop = stopped
                condition.unlock()
                if stop { return }
                bake(i, threads: 1)
            }
        }
        worker.start()
    }

    subscript(index: Int) -> Layer {
        condition.lock()
        defer { condition.unlock() }
        while baked[index] == nil { condition.wait() }
        return baked[index]!
    }

    /// Asks the background thread to give up (the export ended early).
    func stop() {
        condition.lock()
        stopped = true
        condition.unlock()
    }

    private func bake(_ index: Int, threads: Int) {
        condition.lock()
        guard let tree = raw[index] else { condition.unlock(); return }
        var requests: [Key: (Image, Rect, Int, Int)] = [:]
        func collect(_ layer: Layer) {
            if let image = layer.contents {
                let (key, source, width, height) = plan(layer, image)
                if cache[key] == nil { requests[key] = (image, source, width, height) }
            }
            layer.sublayers.forEach(collect)
        }
        collect(tree)
        condition.unlock()

        let keys = Array(requests.keys)
        let images = (try? parallelMap(keys, threads: threads) { key -> Image in
            let (image, source, width, height) = requests[key]!
            return image.resampled(from: source, width: width, height: height)
        }) ?? []

        condition.lock()
        for (key, image) in zip(keys, images) { cache[key] = image }
        func replace(_ layer: Layer) -> Layer {
            var layer = layer
            if let image = layer.contents {
                layer.contents = cache[plan(layer, image).0]
                // The baked image has the shape it is drawn with: a fill is already cropped.
                if layer.contentsGravity == .fill { layer.contentsGravity = .stretch }
            }
            layer.sublayers = layer.sublayers.map(replace)
            return layer
        }
        baked[index] = replace(tree)
        raw[index] = nil   // let go of the full-size pictures once nothing needs them
        condition.broadcast()
        condition.unlock()
    }

    /// The part of `image` a layer shows and the whole pixels it is drawn at.
    private func plan(_ layer: Layer, _ image: Image) -> (Key, Rect, Int, Int) {
        let pixels = Rect(x: 0, y: 0, width: layer.bounds.width * scale, height: layer.bounds.height * scale)
        let place = layer.contentsGravity.placement(of: image.size, in: pixels)
        let width = ScreenBaker.length(place.destination.width, within: pixels.width)
        let height = ScreenBaker.length(place.destination.height, within: pixels.height)
        return (Key(image: ObjectIdentifier(image), source: place.source, width: width, height: height), place.source, width, height)
    }

    /// Whole pixels for a drawn length, with the parity of the length it is centered in, so
    /// a letterboxed image lands on whole pixels.
    static func length(_ length: Double, within outer: Double) -> Int {
        let whole = max(1, Int(outer.rounded()))
        var n = max(1, Int(length.rounded()))
        if n < whole, (whole - n) % 2 != 0 { n += length >= Double(n) ? 1 : -1 }
        return max(1, min(n, whole))
    }
}

/// Runs jobs: composes frames on a producer thread, a few frames ahead, while the calling
/// thread hands them to the sinks (the encoder), so rendering and encoding overlap and
/// memory stays flat however long the video is.
public enum Exporter {
    /// Frames composed ahead of the encoder.
    static let queueDepth = 3

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
        let storyboard = try Storyboard(job: job)
        let prepareSeconds = seconds(since: start)
        if cancellation?.isCancelled == true { throw ExportError.cancelled }
        let timeline = storyboard.timeline
        let indices = job.frameIndices(count: timeline.frameCount)
        let sink = try makeSink(job, fingerprint: fingerprint)
        let compositor = Compositor(threads: job.threads)

        let queue = BlockingQueue<Message>(capacity: queueDepth)
        let pool = BlockingQueue<FrameBuffer>(capacity: queueDepth + 2)
        for _ in 0..<(queueDepth + 2) { pool.put(FrameBuffer(width: storyboard.canvas.width, height: storyboard.canvas.height)) }
        let stop = Cancellation()
        let composeTime = Accumulator()
        let producer = Thread {
            var previous: Moment?
            for index in indices {
                if stop.isCancelled || cancellation?.isCancelled == true { break }
                let moment = timeline.moment(at: index)
                if moment == previous { queue.put(.repeatLast(index)); continue }
                guard let frame = pool.take(unless: stop) else { break }
                let began = DispatchTime.now()
                compositor.render(storyboard.scene(moment), canvas: storyboard.canvas, into: frame)
                composeTime.add(seconds(since: began))
                previous = moment
                queue.put(.frame(index, frame))
            }
            queue.put(.end)
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
                            framesComposed: composed, composeSeconds: composeTime.value, prepareSeconds: prepareSeconds,
                            seconds: seconds(since: start), fingerprint: fingerprint)
    }

    static func makeSink(_ job: Job, fingerprint: String?) throws -> FrameSink {
        let canvas = job.preset.canvas
        // --resume replaces an output made from another fingerprint, as --force does.
        let replace = job.overwrite || job.resume
        switch job.format {
        case .mp4:
            return try MP4Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps, encode: job.preset.encode,
                               fingerprint: fingerprint, replace: replace)
        case .png:
            return try PNGSink(folder: job.output, fingerprint: fingerprint, replace: replace)
        case .framemd5:
            return try FrameMD5Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps,
                                    fingerprint: fingerprint, replace: replace)
        case .sheet:
            return try SheetSink(path: job.output, frameWidth: canvas.width, frameHeight: canvas.height,
                                 fingerprint: fingerprint, replace: replace)
        case .null:
            return NullSink()
        }
    }

    private static func drain(_ queue: BlockingQueue<Message>) {
        while true { if case .end = queue.take() { return } }
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    enum Message {
        case frame(Int, FrameBuffer)
        /// The frame equals the one before it (a still hold): nothing new was composed.
        case repeatLast(Int)
        case end
    }
}

/// `transform` applied to each element, `threads` at a time; the first error thrown, if any,
/// is rethrown once all are done.
func parallelMap<T, R>(_ items: [T], threads: Int, _ transform: (T) throws -> R) throws -> [R] {
    guard items.count > 1, threads > 1 else { return try items.map(transform) }
    var results = [Result<R, Error>?](repeating: nil, count: items.count)
    let lock = NSLock()
    var next = 0
    DispatchQueue.concurrentPerform(iterations: min(threads, items.count)) { _ in
        while true {
            lock.lock()
            let i = next
            next += 1
            lock.unlock()
            guard i < items.count else { return }
            let result = Result { try transform(items[i]) }
            lock.lock()
            results[i] = result
            lock.unlock()
        }
    }
    return try results.map { try $0!.get() }
}

/// A sum of seconds kept by one thread and read by another.
final class Accumulator: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0.0
    var value: Double { lock.lock(); defer { lock.unlock() }; return total }
    func add(_ seconds: Double) { lock.lock(); total += seconds; lock.unlock() }
}

/// A request to stop, set once from any thread and read from any other.
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public var isCancelled: Bool { lock.lock(); defer { lock.unlock() }; return cancelled }

    public func cancel() { lock.lock(); cancelled = true; lock.unlock() }
}

/// A first-in, first-out queue of bounded size whose `put` waits while it is full and whose
/// `take` waits while it is empty.
final class BlockingQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func put(_ item: Element) {
        condition.lock()
        while items.count >= capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    func take() -> Element {
        condition.lock()
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        condition.unlock()
        return item
    }

    /// Wakes every waiting `take(unless:)`, so it sees its stop flag.
    func wakeAll() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Like `take`, but gives nil once `stop` is cancelled and nothing is queued.
    func take(unless stop: Cancellation) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty {
            if stop.isCancelled { return nil }
            condition.wait()
        }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }
}
