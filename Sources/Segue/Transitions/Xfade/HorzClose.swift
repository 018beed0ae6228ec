/// FFmpeg xfade's `horzclose`: the next image closes in from the top and bottom edges, through a soft edge on
/// each side. Ported from vf_xfade.c.
public struct HorzClose: PixelTransition {
    public static let name = "horzclose"
    public static let summary = "The next image closes in from the top and bottom edges (FFmpeg xfade horzclose)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade horzclose"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), half = Float(height) / 2
        return { y, pages, out in pages.mix(y, into: out, constant: Xfade.smoothstep(0, 1, 1 + abs((Float(y) - half) / half) - p * 2)) }
    }
}
