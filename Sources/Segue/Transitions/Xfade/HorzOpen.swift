/// FFmpeg xfade's `horzopen`: the next image opens out from the horizontal middle line, through a soft edge on
/// each side. Ported from vf_xfade.c.
public struct HorzOpen: PixelTransition {
    public static let name = "horzopen"
    public static let summary = "The next image opens out from the horizontal middle line (FFmpeg xfade horzopen)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade horzopen"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), half = Float(height) / 2
        return { y, pages, out in pages.mix(y, into: out, constant: Xfade.smoothstep(0, 1, 2 - abs((Float(y) - half) / half) - p * 2)) }
    }
}
