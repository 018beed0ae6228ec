/// FFmpeg xfade's `diagtl`, `diagtr`, `diagbl` and `diagbr`: a soft curved front sweeps from
/// the opposite corner toward `corner`. Ported from vf_xfade.c.
public struct Diagonal: PixelTransition {
    public static let name = "diag"
    public static let summary = "A soft curved front sweeps toward a corner (FFmpeg xfade diagtl, diagtr, diagbl, diagbr)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade diagtl, diagtr, diagbl, diagbr"
    public static let corner = Parameter.choice("corner", default: Corner.tl, "The corner the front moves toward: tl, tr, bl or br.")
    public static let parameters = [corner.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), w = Float(width), h = Float(height), corner = values[Self.corner]
        return { y, pages, out in
            let v = corner.isTop ? Float(y) / h : (h - 1 - Float(y)) / h
            pages.mix(y, into: out) { x in
                let u = corner.isLeft ? Float(x) / w : (w - 1 - Float(x)) / w
                return Xfade.smoothstep(0, 1, 1 + u * v - p * 2)
            }
        }
    }
}
