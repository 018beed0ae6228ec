import Foundation

/// The overlays of a job as the storyboard draws them, each picture a source named by the
/// overlay's place among the job's overlays (`PictureSource.overlay`), laid out and made as
/// its kind says (`OverlayKind.place`). Each is cached like a picture until its overlay is gone.
struct OverlayPictures: Sendable {
    /// One overlay, laid out: its picture's source, size and block, and a typewriter's steps
    /// (step k shows k characters; the whole picture shows them all).
    struct Placed: Sendable {
        var overlay: Overlay
        var source: PictureSource
        /// The picture's own size, in pixels.
        var size: Size
        /// The text block in the picture (a sticker's whole picture), in pixels.
        var block: Rect
        /// The size it is drawn at, in pixels (a text's picture's own).
        var drawn: Size
        /// A typewriter's steps, each a picture of its own (`PictureSource.overlay(n, step:)`).
        var steps: Int?
        /// An animated sticker's frames.
        var feed: StickerFeed?
        /// The margins it keeps out of: the canvas's safe area, unless it was placed (`Overlay.placed`).
        var safe = EdgeInsets()

        /// How the overlay is drawn at `time` (seconds from its slide's or the video's
        /// start), or nil while it is not on screen.
        func state(at time: Double, length: Double) -> Overlay.State? {
            guard var state = overlay.state(at: time, length: length) else { return nil }
            if let feed { state.frame = feed.frameStart(at: time - overlay.span.start, loop: overlay.sticker?.loop ?? true) }
            if overlay.leak != nil {
                // A leak's picture is made for how far through its time it is.
                let end = min(overlay.span.endTime ?? length, length)
                state.frame = end > overlay.span.start ? (time - overlay.span.start) / (end - overlay.span.start) : 0
            }
            return state
        }

        /// The overlay's layer at `time`, or nil while it is not on screen.
        func layer(at time: Double, length: Double, page: Size, scale: Double) -> Layer? {
            guard let state = state(at: time, length: length) else { return nil }
            var shown = source
            if let reveal = state.reveal, let steps, reveal < steps, case let .overlay(number, _, _) = source {
                shown = .overlay(number, step: max(0, reveal))
            }
            var picture = Picture(shown, size: size)
            picture.time = state.frame
            return overlay.layer(state, picture: picture, pixels: drawn, block: block, page: page, scale: scale, safe: safe)
        }

        /// Every source the overlay draws.
        var sources: Set<PictureSource> {
            guard let steps, case let .overlay(number, _, _) = source else { return [source] }
            return Set([source] + (0..<steps).map { .overlay(number, step: $0) })
        }
    }

    /// What laying out a job's overlays keeps as each kind places its own.
    struct Making {
        let canvas: Canvas
        let limits: Limits
        /// Pictures decoded to lay them out (still stickers): the storyboard's cache starts with them.
        var decoded: [PictureSource: Image] = [:]
        /// The animated stickers' feeds, by file: one decoder a file however many overlays show it.
        var feeds: [String: StickerFeed] = [:]
        /// How each picture is made, given the time an animated one's frame starts at.
        fileprivate(set) var made: [PictureSource: @Sendable (Double) throws -> Image] = [:]
        /// The last text laid out: a caption's words share one string and one layout, so each
        /// word's overlay is measured by comparing its look to the last (the same string: at once).
        private var measured: (look: TextLook, size: Size, block: Rect)?

        init(canvas: Canvas, limits: Limits) {
            self.canvas = canvas
            self.limits = limits
        }

        mutating func make(_ source: PictureSource, _ picture: @escaping @Sendable (Double) throws -> Image) { made[source] = picture }

        /// The size of `layout`'s picture and its block of lines.
        mutating func measure(_ layout: TextLook) throws -> (size: Size, block: Rect) {
            if let measured, measured.look == layout { return (measured.size, measured.block) }
            let (size, block) = try layout.measure()
            measured = (layout, size, block)
            return (size, block)
        }
    }

    var slides: [[Placed]] = []
    var screen: [Placed] = []
    /// Still stickers, decoded to lay them out: the storyboard's cache starts with them.
    private(set) var decoded: [PictureSource: Image] = [:]
    /// How each picture is made.
    private var made: [PictureSource: @Sendable (Double) throws -> Image] = [:]

    init() {}

    init(slides: [[Overlay]], screen: [Overlay], canvas: Canvas, limits: Limits = Limits()) throws {
        var making = Making(canvas: canvas, limits: limits), number = 0
        func place(_ overlay: Overlay) throws -> Placed {
            defer { number += 1 }
            return try OverlayKind.of(overlay).place(overlay, number, &making)
        }
        self.slides = try slides.map { try $0.map(place) }
        self.screen = try screen.map(place)
        made = making.made
        decoded = making.decoded
    }

    /// The picture of source `source` (an animated sticker's frame that starts at `time`).
    func image(_ source: PictureSource, time: Double = 0) throws -> Image {
        guard let made = made[source] else { preconditionFailure("no overlay picture \(source)") }
        return try made(time)
    }
}

/// The screen's overlays by the whole second they show in, so that a frame looks only at the
/// overlays of its own second: a transcript's worth of captions costs each frame the few cues
/// near it, not all of them. Each second lists its overlays in their order, which is the order
/// they are stacked in.
struct OverlaySeconds: Sendable {
    private var seconds: [[Int]] = []
    /// The overlays that end, by when they end (seconds of the video), earliest first.
    private(set) var ends: [(time: Double, index: Int)] = []

    init() {}

    /// The overlays of `placed` on a video of `length` seconds.
    init(_ placed: [OverlayPictures.Placed], length: Double) {
        guard !placed.isEmpty, length.isFinite else { return }
        let count = Int(max(0, length).rounded(.down)) + 1
        var seconds = [[Int]](repeating: [], count: count)
        for (index, p) in placed.enumerated() {
            if let time = p.overlay.span.endTime { ends.append((time, index)) }
            let start = max(0, p.overlay.span.start), end = min(p.overlay.span.endTime ?? length, length)
            guard end >= start, start <= length else { continue }
            for second in Int(start.rounded(.down))...min(count - 1, Int(end.rounded(.down))) { seconds[second].append(index) }
        }
        self.seconds = seconds
        ends.sort { $0.time < $1.time }
    }

    /// The overlays that may show at `time`, in their order: those whose time on screen meets
    /// its second.
    func candidates(at time: Double) -> [Int] {
        guard !seconds.isEmpty, time >= 0 else { return [] }
        return seconds[min(seconds.count - 1, Int(time.rounded(.down)))]
    }

    /// How many overlays have ended before `time`: the first of `ends` not before it.
    func endedCount(before time: Double) -> Int {
        var low = 0, high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
