import Foundation

/// FFmpeg xfade's `radial`: a soft edge sweeps round the center like a clock's hand. Ported
/// from vf_xfade.c.
public struct Radial: PixelTransition {
    public static let name = "radial"
    public static let summary = "A soft edge sweeps round the center like a clock hand (FFmpeg xfade radial)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade radial"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let cx = Float(width / 2), cy = Float(height / 2)
        let turn = (Xfade.progress(progress) - 0.5) * (Float.pi * 2.5)
        return { y, pages, out in
            let dy = Float(y) - cy
            pages.mix(y, into: out) { x in Xfade.smoothstep(0, 1, Xfade.atan2(Float(x) - cx, dy) - turn) }
        }
    }
}
