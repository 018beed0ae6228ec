/// FFmpeg xfade's `hlslice`, `hrslice`, `vuslice` and `vdslice`: ten bands, each filled by a
/// sharp front that starts a little after the one before it, toward `direction`. Ported from
/// vf_xfade.c.
public struct Slice: PixelTransition {
    public static let name = "slice"
    public static let summary = "Ten bands fill one after another (FFmpeg xfade hlslice, hrslice, vuslice, vdslice)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade hlslice, hrslice, vuslice, vdslice"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the bands fill toward: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        let weight: @Sendable (Float) -> Float = { along in
            Xfade.smoothstep(-0.5, 0, along - p * 1.5) <= Xfade.fract(10 * along) ? 0 : 1
        }
        return Xfade.rows(along: values[Self.direction], width: width, height: height, weight: weight)
    }
}
