/// FFmpeg xfade's `wipetl`, `wipetr`, `wipebl` and `wipebr`: the outgoing page shrinks into
/// `corner` as a rectangle, the incoming one around it. Ported from vf_xfade.c; the
/// rectangle's edges anti-aliased at their exact places.
public struct CornerWipe: PixelTransition {
    public static let name = "wipecorner"
    public static let summary = "The last image shrinks into a corner as a rectangle, the next around it (FFmpeg xfade wipetl, wipetr, wipebl, wipebr)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade wipetl, wipetr, wipebl, wipebr"
    public static let corner = Parameter.choice("corner", default: Corner.tl, "The corner the last image shrinks into: tl, tr, bl or br.")
    public static let parameters = [corner.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), w = Float(width), h = Float(height), corner = values[Self.corner]
        // The outgoing page's rectangle, p of the screen each way, in the corner; a pixel
        // wider and taller toward the screen's middle, as xfade's `x <= z` has it.
        let xs: (Float, Float) = corner.isLeft ? (0, w * p + 1) : (w * (1 - p) + 1, w)
        let ys: (Float, Float) = corner.isTop ? (0, h * p + 1) : (h * (1 - p) + 1, h)
        // A row wholly in the rectangle's rows mixes by the columns' weights, made once a frame;
        // one wholly outside is the incoming page's.
        let inColumns = PagePictures.columnWeights(width) { x in Xfade.coverage(x, xs.0, xs.1) }
        let full = inColumns.map { 1 - $0 }
        return { y, pages, out in
            let inRow = Xfade.coverage(y, ys.0, ys.1)
            if inRow == 0 { out.update(from: pages.b(y), count: width); return }
            if inRow == 1 { pages.mix(y, into: out, weights: full); return }
            inColumns.withUnsafeBufferPointer { c in pages.mix(y, into: out) { x in 1 - inRow * c[x] } }
        }
    }
}
