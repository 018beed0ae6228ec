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

/// The inputs of a job, decoded once and resampled once to the size they are drawn at, and
/// the scene of any frame built from them.
public struct Storyboard: Sendable {
    public let canvas: Canvas
    public let timeline: Timeline
    public let transition: any Transition
    /// One full-screen page layer per input.
    public let pages: [Layer]

    public init(job: Job) throws {
        canvas = job.canvas
        timeline = job.timeline
        transition = job.preset.transition.choice.transition
        var decoded: [String: Image] = [:]
        var pages: [Layer] = []
        for path in job.inputs {
            let image = try decoded[path] ?? Image.decode(path: path, limits: job.limits)
            decoded[path] = image
            pages.append(Storyboard.page(image, fit: job.preset.fit, canvas: job.canvas))
        }
        self.pages = pages
    }

    /// A page covering the canvas with `image` resampled once to the pixels it covers there.
    public static func page(_ image: Image, fit: ContentsGravity, canvas: Canvas) -> Layer {
        let pixels = Rect(x: 0, y: 0, width: Double(canvas.width), height: Double(canvas.height))
        let place = fit.placement(of: image.size, in: pixels)
        // Keep the parity of the canvas, so a letterboxed image lands on whole pixels.
        func size(_ length: Double, _ canvasLength: Int) -> Int {
            var n = max(1, Int(length.rounded()))
            if n < canvasLength, (canvasLength - n) % 2 != 0 { n += length >= Double(n) ? 1 : -1 }
            return max(1, min(n, canvasLength))
        }
        let resampled = image.resampled(from: place.source, width: size(place.destination.width, canvas.width),
                                        height: size(place.destination.height, canvas.height))
        var page = Layer(frame: canvas.bounds)
        page.contents = resampled
        page.contentsGravity = fit == .fit ? .fit : .stretch
        page.name = "page"
        return page
    }

    /// The scene of a moment of the timeline.
    public func scene(_ moment: Moment) -> Layer {
        switch moment {
        case let .hold(index):
            return .root(canvas.bounds, [pages[index]])
        case let .transition(from, progress, _):
            return transition.scene(from: pages[from], to: pages[from + 1], progress: progress, bounds: canvas.bounds)
        }
    }
}

/// Runs jobs: composes frames on a producer thread, a few frames ahead, while the calling
/// thread hands them to the sinks (the encoder), so rendering and encoding overlap and
/// memory stays flat however long the video is.
public enum Exporter {
    /// Frames composed ahead of the encoder.
    static let queueDepth = 3

    @discardableResult
    public static func run(_ job: Job, progress: ((ExportProgress) -> Void)? = nil) throws -> ExportResult {
        let start = DispatchTime.now()
        try job.validate()
        let storyboard = try Storyboard(job: job)
        let timeline = storyboard.timeline
        let indices = job.frames?.indices(below: timeline.frameCount) ?? Array(0..<timeline.frameCount)
        let sink = try makeSink(job)
        let compositor = Compositor(threads: job.threads)

        let queue = BlockingQueue<Message>(capacity: queueDepth)
        let pool = BlockingQueue<FrameBuffer>(capacity: queueDepth + 2)
        for _ in 0..<(queueDepth + 2) { pool.put(FrameBuffer(width: job.canvas.width, height: job.canvas.height)) }
        let stop = Flag()
        let producer = Thread {
            var previous: Moment?
            for index in indices {
                if stop.isSet { break }
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
                switch queue.take() {
                case let .frame(index, frame):
                    try sink.write(frame, index: index)
                    if let last { pool.put(last) }
                    last = frame
                    composed += 1
                case let .repeatLast(index):
                    try sink.write(last!, index: index)
                case .end:
                    break loop
                }
                done += 1
                progress?(ExportProgress(framesDone: done, frameCount: indices.count, elapsed: seconds(since: start)))
            }
            try sink.finish()
        } catch {
            stop.set()
            pool.wakeAll()
            drain(queue)
            sink.abort()
            throw error
        }
        return ExportResult(output: job.output, format: job.format, frameCount: indices.count,
                            framesComposed: composed, seconds: seconds(since: start))
    }

    static func makeSink(_ job: Job) throws -> FrameSink {
        let canvas = job.canvas
        switch job.format {
        case .mp4:
            return try MP4Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps, encode: job.preset.encode)
        case .png:
            return try PNGSink(folder: job.output)
        case .framemd5:
            return try FrameMD5Sink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps)
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

/// A set-once flag shared between threads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
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

    /// Like `take`, but gives nil once `stop` is set and nothing is queued.
    func take(unless stop: Flag) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty {
            if stop.isSet { return nil }
            condition.wait()
        }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }
}
