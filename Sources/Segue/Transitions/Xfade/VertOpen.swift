/// FFmpeg xfade's `vertopen`: the next image opens out from the vertical middle line, through a soft edge on
/// each side. Ported from vf_xfade.c.
public struct VertOpen: PixelTransition {
    public static let name = "vertopen"
    public static let summary = "The next image opens out from the vertical middle line (FFmpeg xfade vertopen)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade vertopen"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), half = Float(width) / 2
        let weights = PagePictures.columnWeights(width) { x in Xfade.smoothstep(0, 1, 2 - abs((Float(x) - half) / half) - p * 2) }
        return { y, pages, out in pages.mix(y, into: out, weights: weights) }
    }
}
