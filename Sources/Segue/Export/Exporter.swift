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
    public var seconds: Double
}

/// The inputs of a job, decoded once and resampled once to the size they are drawn at, the
/// screens the transition shows them on, and the scene of any frame.
public struct Storyboard: Sendable {
    public let canvas: Canvas
    public let timeline: Timeline
    public let transition: any Transition
    /// The still screens, their images resampled to the pixels they cover.
    public let screens: [Layer]

    public init(job: Job) throws {
        var decoded: [String: Image] = [:]
        var images: [Image] = []
        for path in job.inputs {
            let image = try decoded[path] ?? Image.decode(path: path, limits: job.limits)
            decoded[path] = image
            images.append(image)
        }
        self.init(images: images, preset: job.preset)
    }

    public init(images: [Image], preset: Preset) {
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
        var baker = Baker(scale: canvas.scale)
        screens = transition.screens(pages: pages, bounds: canvas.bounds).map { baker.bake($0) }
        timeline = preset.timeline(screens: screens.count)
    }

    /// The scene of a moment of the timeline.
    public func scene(_ moment: Moment) -> Layer {
        switch moment {
        case let .hold(index):
            return .root(canvas.bounds, [screens[index]])
        case let .transition(step, progress, _):
            return transition.scene(step: step, progress: progress, screens: screens, bounds: canvas.bounds)
        }
    }
}

/// Resamples every image of a layer tree once, to the pixels its layer covers at rest
/// (bounds x scale), cropped as its contents gravity crops it; an image drawn at the same
/// size twice is resampled once.
struct Baker {
    let scale: Double
    private var cache: [Key: Image] = [:]

    private struct Key: Hashable {
        let image: ObjectIdentifier
        let source: Rect
        let width: Int, height: Int
    }

    init(scale: Double) { self.scale = scale }

    mutating func bake(_ layer: Layer) -> Layer {
        var layer = layer
        if let image = layer.contents {
            let pixels = Rect(x: 0, y: 0, width: layer.bounds.width * scale, height: layer.bounds.height * scale)
            let place = layer.contentsGravity.placement(of: image.size, in: pixels)
            let width = Baker.length(place.destination.width, within: pixels.width)
            let height = Baker.length(place.destination.height, within: pixels.height)
            let key = Key(image: ObjectIdentifier(image), source: place.source, width: width, height: height)
            let baked = cache[key] ?? image.resampled(from: place.source, width: width, height: height)
            cache[key] = baked
            layer.contents = baked
            // The baked image has the shape it is drawn with: a fill is already cropped.
            if layer.contentsGravity == .fill { layer.contentsGravity = .stretch }
        }
        layer.sublayers = layer.sublayers.map { bake($0) }
        return layer
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
    @discardableResult
    public static func run(_ job: Job, cancellation: Cancellation? = nil,
                           progress: ((ExportProgress) -> Void)? = nil) throws -> ExportResult {
        let start = DispatchTime.now()
        try job.validate()
        let storyboard = try Storyboard(job: job)
        if cancellation?.isCancelled == true { throw ExportError.cancelled }
        let timeline = storyboard.timeline
        let indices = job.frameIndices(count: timeline.frameCount)
        let sink = try makeSink(job)
        let compositor = Compositor(threads: job.threads)

        let queue = BlockingQueue<Message>(capacity: queueDepth)
        let pool = BlockingQueue<FrameBuffer>(capacity: queueDepth + 2)
        for _ in 0..<(queueDepth + 2) { pool.put(FrameBuffer(width: storyboard.canvas.width, height: storyboard.canvas.height)) }
        let stop = Cancellation()
        let producer = Thread {
            var previous: Moment?
            for index in indices {
                if stop.isCancelled || cancellation?.isCancelled == true { break }
                let moment = timeline.moment(at: index)
                if moment == previous { queue.put(.repeatLast(index)); continue }
                guard let frame = pool.take(unless: stop) else { break }
                compositor.render(storyboard.scene(moment), canvas: storyboard.canvas, into: frame)
                previous = moment
                queue.put(.frame(index, frame))
            }
            queue.put(.end)
        }
        producer.stackSize = 1 << 22
        producer.start()

        var composed = 0, done = 0
        var last: FrameBuffer?
        do {
            loop: while true {
                if cancellation?.isCancelled == true { throw ExportError.cancelled }
                switch queue.take() {
                case let .frame(index, frame):
                    try sink.write(frame, index: index)
                    if let last { pool.put(last) }
                    last = frame
                    composed += 1
                case let .repeatLast(index):
                    try sink.write(last!, index: index)
                case .end:
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
            drain(queue)
            sink.abort()
            throw error
        }
        return ExportResult(output: job.output, format: job.format, frameCount: indices.count,
                            framesComposed: composed, seconds: seconds(since: start))
    }

    static func makeSink(_ job: Job) throws -> FrameSink {
        let canvas = job.preset.canvas
        switch job.format {
        case .mp4:
            return try MP4Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps, encode: job.preset.encode)
        case .png:
            return try PNGSink(folder: job.output)
        case .framemd5:
            return try FrameMD5Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps)
        case .sheet:
            return try SheetSink(path: job.output, frameWidth: canvas.width, frameHeight: canvas.height)
        }
    }

    private static func drain(_ queue: BlockingQueue<Message>) {
        while true { if case .end = queue.take() { return } }
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    enum Message {
        case frame(Int, FrameBuffer)
        /// The frame equals the one before it (a still hold): nothing new was composed.
        case repeatLast(Int)
        case end
    }
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
