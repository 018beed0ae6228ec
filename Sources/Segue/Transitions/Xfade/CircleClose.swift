import Foundation

/// FFmpeg xfade's `circleclose`: the outgoing page shrinks into a soft-edged circle at the
/// center. Ported from vf_xfade.c.
public struct CircleClose: PixelTransition {
    public static let name = "circleclose"
    public static let summary = "The last image shrinks into a soft circle at the center (FFmpeg xfade circleclose)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade circleclose"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let cx = Float(width / 2), cy = Float(height / 2), z = hypotf(cx, cy), shift = (1 - Xfade.progress(progress) - 0.5) * 3
        return { y, pages, out in
            let dy = Float(y) - cy
            pages.mix(y, into: out) { x in Xfade.smoothstep(0, 1, Xfade.length(Float(x) - cx, dy) / z + shift) }
        }
    }
}
