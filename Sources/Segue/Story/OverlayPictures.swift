import Foundation

/// The overlays of a job as the storyboard draws them, each picture a source after the
/// job's inputs: a text look laid out when the storyboard is made and drawn by Pango and
/// Cairo when a frame first needs it; a still sticker decoded when the storyboard is made;
/// an animated sticker's frames decoded in order as frames ask for them (`StickerFeed`).
/// Each is cached like a picture until its overlay is gone.
struct OverlayPictures: Sendable {
    /// One overlay, laid out: its picture's source, size and block, and the sources of a
    /// typewriter's steps (step k shows k characters; the whole look shows them all).
    struct Placed: Sendable {
        var overlay: Overlay
        var source: Int
        /// The picture's own size, in pixels.
        var size: Size
        /// The text block in the picture (a sticker's whole picture), in pixels.
        var block: Rect
        /// The size it is drawn at, in pixels (a text's picture's own).
        var drawn: Size
        var firstStep: Int?
        /// An animated sticker's frames.
        var feed: StickerFeed?
        /// The margins a text keeps out of (the canvas's safe area; none for stickers).
        var safe = EdgeInsets()

        /// How the overlay is drawn at `time` (seconds from its slide's or the video's
        /// start), or nil while it is not on screen.
        func state(at time: Double, length: Double) -> Overlay.State? {
            guard var state = overlay.state(at: time, length: length) else { return nil }
            if let feed { state.frame = feed.frameStart(at: time - overlay.start, loop: overlay.sticker?.loop ?? true) }
            return state
        }

        /// The overlay's layer at `time`, or nil while it is not on screen.
        func layer(at time: Double, length: Double, page: Size, scale: Double) -> Layer? {
            guard let state = state(at: time, length: length) else { return nil }
            var shown = source
            if let reveal = state.reveal, let firstStep, reveal < overlay.steps { shown = firstStep + max(0, reveal) }
            var picture = Picture(source: shown, size: size)
            picture.time = state.frame
            return overlay.layer(state, picture: picture, pixels: drawn, block: block, page: page, scale: scale, safe: safe)
        }

        /// Every source the overlay draws.
        var sources: Set<Int> {
            Set([source] + (firstStep.map { first in (0..<overlay.steps).map { first + $0 } } ?? []))
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
    private(set) var decoded: [Int: Image] = [:]
    /// Every picture, source `firstSource + k` being `made[k]`.
    private var made: [Made] = []
    private var firstSource = 0
    private var limits = Limits()

    init() {}

    init(slides: [[Overlay]], screen: [Overlay], canvas: Canvas, firstSource: Int, limits: Limits = Limits()) throws {
        self.firstSource = firstSource
        self.limits = limits
        var made: [Made] = [], decoded: [Int: Image] = [:]
        func place(_ overlay: Overlay) throws -> Placed {
            let source = firstSource + made.count
            if let sticker = overlay.sticker {
                var size: Size, feed: StickerFeed?
                if sticker.isAnimated {
                    feed = try StickerFeed(path: sticker.path, limits: limits)
                    size = feed!.size
                    made.append(.animated(feed!))
                } else {
                    let image = try Image.decode(path: sticker.path, limits: limits)
                    size = image.size
                    decoded[source] = image
                    made.append(.still(path: sticker.path))
                }
                let drawn = sticker.drawnPixels(of: size, page: canvas.bounds.size, scale: canvas.scale)
                return Placed(overlay: overlay, source: source, size: size, block: Rect(size: Size(width: Double(drawn.width), height: Double(drawn.height))),
                              drawn: Size(width: Double(drawn.width), height: Double(drawn.height)), feed: feed)
            }
            let look = overlay.look(pageWidth: canvas.bounds.width, scale: canvas.scale)
            let (size, block) = try look.measure()
            made.append(.look(look))
            var placed = Placed(overlay: overlay, source: source, size: size, block: block, drawn: size, safe: canvas.safeArea)
            if overlay.appear.kind == .typewriter || overlay.disappear.kind == .typewriter {
                placed.firstStep = firstSource + made.count
                made += (0..<overlay.steps).map { .look(overlay.look(pageWidth: canvas.bounds.width, scale: canvas.scale, step: $0)) }
            }
            return placed
        }
        self.slides = try slides.map { try $0.map(place) }
        self.screen = try screen.map(place)
        self.made = made
        self.decoded = decoded
    }

    /// The sources whose pictures change with time (animated stickers).
    var animatedSources: Set<Int> {
        Set(made.indices.filter { if case .animated = made[$0] { true } else { false } }.map { $0 + firstSource })
    }

    /// The picture of source `source` (an animated sticker's frame that starts at `time`).
    func image(_ source: Int, time: Double = 0) throws -> Image {
        switch made[source - firstSource] {
        case let .look(look): return try look.render().image
        case let .still(path): return try Image.decode(path: path, limits: limits)
        case let .animated(feed): return try feed.frame(startingAt: time)
        }
    }
}
