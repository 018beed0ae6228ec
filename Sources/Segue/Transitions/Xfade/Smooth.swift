/// FFmpeg xfade's `smoothleft`, `smoothright`, `smoothup` and `smoothdown`: a soft edge, half
/// the screen wide, crosses it toward `direction`. Ported from vf_xfade.c.
public struct Smooth: PixelTransition {
    public static let name = "smooth"
    public static let summary = "A soft edge crosses the screen (FFmpeg xfade smoothleft, smoothright, smoothup, smoothdown)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade smoothleft, smoothright, smoothup, smoothdown"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the edge moves: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        // The weight of the incoming page where the edge's coordinate is `along` (0...1).
        let weight: @Sendable (Float) -> Float = { along in Xfade.smoothstep(0, 1, 1 + along - p * 2) }
        return Xfade.rows(along: values[Self.direction], width: width, height: height, weight: weight)
    }
}
