/// FFmpeg xfade's `vertclose`: the next image closes in from the left and right edges, through a soft edge on
/// each side. Ported from vf_xfade.c.
public struct VertClose: PixelTransition {
    public static let name = "vertclose"
    public static let summary = "The next image closes in from the left and right edges (FFmpeg xfade vertclose)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade vertclose"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), half = Float(width) / 2
        let weights = PagePictures.columnWeights(width) { x in Xfade.smoothstep(0, 1, 1 + abs((Float(x) - half) / half) - p * 2) }
        return { y, pages, out in pages.mix(y, into: out, weights: weights) }
    }
}
