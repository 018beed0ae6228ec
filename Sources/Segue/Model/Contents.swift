/// What a layer's contents show, referred to rather than held: resolved to pixels when a
/// frame is composed, at the size the layer draws it, and cached by `PictureKey` so that
/// each is made once per size (`PictureCache`), never per frame.
///
/// Every kind of contents is a picture of a typed source (`PictureSource`: a still, a clip's
/// frame, a text's look, a sticker's frame); a fill is what is made of one (`PictureEffect`).
/// A new kind joins `PictureSource`: its case, and in the storyboard how its pixels are made.
public enum Contents: Hashable, Sendable {
    /// A picture: a still input, a clip's frame, a text's look or a sticker's frame.
    case picture(Picture)

    /// The size of what is shown, in pixels, which the layer's gravity places in its bounds.
    public var size: Size {
        switch self {
        case let .picture(picture): return picture.shownSize
        }
    }

    /// For a clip's frame, the clip time shown; nil for contents that do not change.
    public var time: Double? {
        get {
            switch self {
            case let .picture(picture): return picture.time
            }
        }
        set {
            switch self {
            case var .picture(picture):
                picture.time = newValue
                self = .picture(picture)
            }
        }
    }
}

/// Where a picture's pixels come from. Inputs are named by their place among the job's
/// inputs (0-based), overlays by theirs among the job's overlays (each slide's in order, then
/// the screen's).
public enum PictureSource: Hashable, Sendable {
    /// A still input, by the first place its file has among the inputs.
    case still(Int)
    /// The clip of slide `n`, whose pictures come with each frame's plan.
    case clip(Int)
    /// Overlay `n`'s picture; with `step`, one of its steps (the first `step` characters a
    /// typewriter shows); an `animated` one's picture changes with `PictureKey.time`.
    case overlay(Int, step: Int? = nil, animated: Bool = false)

    /// The slide whose clip this is, or nil.
    public var clipSlide: Int? { if case let .clip(slide) = self { slide } else { nil } }

    /// Whether its picture changes with time and is made for each time (an animated sticker).
    var isAnimated: Bool { if case .overlay(_, _, true) = self { true } else { false } }
}

/// A picture a layer shows: its source, the part of it shown, and for one that moves, the time.
public struct Picture: Hashable, Sendable {
    public var source: PictureSource
    /// The source's size in pixels, upright.
    public var size: Size
    /// The part of the source shown, in its pixels; nil for all of it (as CALayer's contentsRect).
    public var region: Rect?
    /// For a clip, the clip time shown (seconds from the start of its part); nil for a still.
    public var time: Double?
    /// What is made of the picture (a backdrop's blur); `.none` for its pixels.
    public var effect = PictureEffect.none

    public init(_ source: PictureSource, size: Size, region: Rect? = nil, time: Double? = nil) {
        self.source = source
        self.size = size
        self.region = region
        self.time = time
    }

    /// Still input `source` (0-based), whole or its `region`.
    public init(source: Int, size: Size, region: Rect? = nil) {
        self.init(.still(source), size: size, region: region)
    }

    /// The size of what is shown: the region's, or the whole source's.
    public var shownSize: Size { region?.size ?? size }
}

/// A picture prepared for one layer: the source's part, resampled to the whole pixels the
/// layer draws it at (its bounds times the canvas scale, as a CALayer's backing store is
/// made at bounds times contentsScale), whatever transform the layer is under.
struct PictureKey: Hashable, Sendable {
    var source: PictureSource
    /// The part of the source, in its pixels.
    var crop: Rect
    var width: Int
    var height: Int
    /// The source's time, for sources that change (clips, animated stickers); 0 for stills.
    var time: Double = 0
    /// What is made of the part (a backdrop), drawn at `width` x `height`.
    var effect = PictureEffect.none

    /// The key of `contents` drawn in `bounds` (points) with `gravity` at `scale` pixels per
    /// point, and where the prepared image goes in `bounds`.
    static func plan(_ contents: Contents, in bounds: Rect, gravity: ContentsGravity, scale: Double) -> (key: PictureKey, destination: Rect) {
        let pixels = Rect(x: 0, y: 0, width: bounds.width * scale, height: bounds.height * scale)
        let place = gravity.placement(of: contents.size, in: pixels)
        let width = PictureKey.length(place.destination.width, within: pixels.width)
        let height = PictureKey.length(place.destination.height, within: pixels.height)
        var crop = place.source
        let key: PictureKey
        switch contents {
        case let .picture(picture):
            if let region = picture.region { crop.origin.x += region.minX; crop.origin.y += region.minY }
            key = PictureKey(source: picture.source, crop: crop, width: width, height: height, time: picture.time ?? 0, effect: picture.effect)
        }
        // The prepared image has the shape it is drawn with: a fill is already cropped, a fit
        // is placed by its whole pixels.
        let size = Size(width: Double(width), height: Double(height))
        let destination = gravity == .fit ? ContentsGravity.fit.placement(of: size, in: bounds).destination : bounds
        return (key, destination)
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

