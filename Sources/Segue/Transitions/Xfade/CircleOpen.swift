import Foundation

/// FFmpeg xfade's `circleopen`: the incoming page shows through a soft-edged circle growing
/// from the center. Ported from vf_xfade.c. (`iris` is the hard-edged one, from any point.)
public struct CircleOpen: PixelTransition {
    public static let name = "circleopen"
    public static let summary = "The next image shows through a soft circle growing from the center (FFmpeg xfade circleopen)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade circleopen"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let cx = Float(width / 2), cy = Float(height / 2), z = hypotf(cx, cy), shift = (Xfade.progress(progress) - 0.5) * 3
        return { y, pages, out in
            let dy = Float(y) - cy
            pages.mix(y, into: out) { x in 1 - Xfade.smoothstep(0, 1, Xfade.length(Float(x) - cx, dy) / z + shift) }
        }
    }
}
