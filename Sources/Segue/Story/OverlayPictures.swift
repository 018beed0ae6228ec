import Foundation

/// The overlays of a job as the storyboard draws them, each picture a source named by the
/// overlay's place among the job's overlays (`PictureSource.text`, `.sticker`): a text look laid out when the storyboard is made and drawn by Pango and
/// Cairo when a frame first needs it; a still sticker decoded when the storyboard is made;
/// an animated sticker's frames decoded in order as frames ask for them (`StickerFeed`).
/// Each is cached like a picture until its overlay is gone.
struct OverlayPictures: Sendable {
    /// One overlay, laid out: its picture's source, size and block, and whether it has a
    /// typewriter's steps (step k shows k characters; the whole look shows them all).
    struct Placed: Sendable {
        var overlay: Overlay
        var source: PictureSource
        /// The picture's own size, in pixels.
        var size: Size
        /// The text block in the picture (a sticker's whole picture), in pixels.
        var block: Rect
        /// The size it is drawn at, in pixels (a text's picture's own).
        var drawn: Size
        var typewriter = false
        /// An animated sticker's frames.
        var feed: StickerFeed?
        /// The margins it keeps out of: the canvas's safe area, unless it was placed (`Overlay.placed`).
        var safe = EdgeInsets()

        /// How the overlay is drawn at `time` (seconds from its slide's or the video's
        /// start), or nil while it is not on screen.
        func state(at time: Double, length: Double) -> Overlay.State? {
            guard var state = overlay.state(at: time, length: length) else { return nil }
            if let feed { state.frame = feed.frameStart(at: time - overlay.span.start, loop: overlay.sticker?.loop ?? true) }
            return state
        }

        /// The overlay's layer at `time`, or nil while it is not on screen.
        func layer(at time: Double, length: Double, page: Size, scale: Double) -> Layer? {
            guard let state = state(at: time, length: length) else { return nil }
            var shown = source
            if let reveal = state.reveal, typewriter, reveal < overlay.steps, case let .text(number, _) = source {
                shown = .text(number, step: max(0, reveal))
            }
            var picture = Picture(shown, size: size)
            picture.time = state.frame
            return overlay.layer(state, picture: picture, pixels: drawn, block: block, page: page, scale: scale, safe: safe)
        }

        /// Every source the overlay draws.
        var sources: Set<PictureSource> {
            guard typewriter, case let .text(number, _) = source else { return [source] }
            return Set([source] + (0..<overlay.steps).map { .text(number, step: $0) })
        }
    }

    private enum Made: Sendable {
        case look(TextLook)
        case still(path: String)
        case animated(StickerFeed)
    }

    var slides: [[Placed]] = []
    var screen: [Placed] = []
    /// Still stickers, decoded to lay them out: the storyboard's cache starts with them.
    private(set) var decoded: [PictureSource: Image] = [:]
    /// How each picture is made.
    private var made: [PictureSource: Made] = [:]
    private var limits = Limits()

    init() {}

    init(slides: [[Overlay]], screen: [Overlay], canvas: Canvas, limits: Limits = Limits()) throws {
        self.limits = limits
        var made: [PictureSource: Made] = [:], decoded: [PictureSource: Image] = [:], number = 0
        // The last text laid out: a caption's words share one string and one layout, so each
        // word's overlay is measured by comparing its look to the last (the same string: at once).
        var measured: (look: TextLook, size: Size, block: Rect)?
        func place(_ overlay: Overlay) throws -> Placed {
            defer { number += 1 }
            if let sticker = overlay.sticker {
                let source = PictureSource.sticker(number, animated: sticker.isAnimated)
                var size: Size, feed: StickerFeed?
                if sticker.isAnimated {
                    feed = try StickerFeed(path: sticker.path, limits: limits)
                    size = feed!.size
                    made[source] = .animated(feed!)
                } else {
                    let image = try Image.decode(path: sticker.path, limits: limits)
                    size = image.size
                    decoded[source] = image
                    made[source] = .still(path: sticker.path)
                }
                let drawn = sticker.drawnPixels(of: size, page: canvas.bounds.size, scale: canvas.scale)
                return Placed(overlay: overlay, source: source, size: size, block: Rect(size: Size(width: Double(drawn.width), height: Double(drawn.height))),
                              drawn: Size(width: Double(drawn.width), height: Double(drawn.height)), feed: feed, safe: overlay.placed ? EdgeInsets() : canvas.safeArea)
            }
            let look = overlay.look(pageWidth: canvas.bounds.width, scale: canvas.scale)
            let layout = look.layout
            if measured?.look != layout {
                let (size, block) = try layout.measure()
                measured = (layout, size, block)
            }
            let (size, block) = (measured!.size, measured!.block)
            let source = PictureSource.text(number)
            made[source] = .look(look)
            var placed = Placed(overlay: overlay, source: source, size: size, block: block, drawn: size, safe: overlay.placed ? EdgeInsets() : canvas.safeArea)
            if overlay.appear.kind == .typewriter || overlay.disappear.kind == .typewriter {
                placed.typewriter = true
                for (step, typed) in overlay.stepScalars.enumerated() {
                    made[.text(number, step: step)] = .look(overlay.look(pageWidth: canvas.bounds.width, scale: canvas.scale, typed: typed))
                }
            }
            return placed
        }
        self.slides = try slides.map { try $0.map(place) }
        self.screen = try screen.map(place)
        self.made = made
        self.decoded = decoded
    }

    /// The picture of source `source` (an animated sticker's frame that starts at `time`).
    func image(_ source: PictureSource, time: Double = 0) throws -> Image {
        guard let made = made[source] else { preconditionFailure("no overlay picture \(source)") }
        switch made {
        case let .look(look): return try look.render().image
        case let .still(path): return try Image.decode(path: path, limits: limits)
        case let .animated(feed): return try feed.frame(startingAt: time)
        }
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
