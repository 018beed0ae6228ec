/// FFmpeg xfade's `wipeleft`, `wiperight`, `wipeup` and `wipedown`: a straight edge crosses the
/// screen toward `direction`, the incoming page behind it. Ported from vf_xfade.c; the edge
/// lies at its exact place each frame, anti-aliased, where xfade's steps a whole pixel.
public struct Wipe: PixelTransition {
    public static let name = "wipe"
    public static let summary = "A straight edge crosses the screen, the next image behind it (FFmpeg xfade wipeleft, wiperight, wipeup, wipedown)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade wipeleft, wiperight, wipeup, wipedown"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the edge moves: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), w = Float(width), h = Float(height)
        switch values[Self.direction] {
        // The incoming page's part begins a pixel past xfade's edge, as its `x > z` has it.
        case .left:
            let weights = PagePictures.columnWeights(width) { x in Xfade.coverage(x, w * p + 1, w) }
            return { y, pages, out in pages.mix(y, into: out, weights: weights) }
        case .right:
            let weights = PagePictures.columnWeights(width) { x in Xfade.coverage(x, 0, w * (1 - p) + 1) }
            return { y, pages, out in pages.mix(y, into: out, weights: weights) }
        case .up: return { y, pages, out in pages.mix(y, into: out, constant: Xfade.coverage(y, h * p + 1, h)) }
        case .down: return { y, pages, out in pages.mix(y, into: out, constant: Xfade.coverage(y, 0, h * (1 - p) + 1)) }
        }
    }
}
