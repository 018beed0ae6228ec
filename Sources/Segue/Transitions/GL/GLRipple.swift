import CSegueKernels
import Foundation

/// gl-transitions' `ripple` by gre (MIT): rings ripple out from the centre of the outgoing
/// picture as the next fades in. Ported from ripple.glsl.
///
/// Its samples are worked out in C alone (`segue_ripple_row`, glwarps.c); here, what a frame shares.
public struct GLRipple: GLKernelWarp {
    public static let file = "ripple", authors = "gre"
    public static let summary = "Rings ripple across the picture as the next fades in (gl-transitions ripple)."
    public static let family = TransitionFamily.displacements
    public static let amplitude = Parameter.number("amplitude", default: 100, in: 0...10000, "How many rings, and how close.")
    public static let speed = Parameter.number("speed", default: 50, in: -10000...10000, "How fast the rings travel.")
    public static let parameters = [amplitude.erased, speed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (amplitude: Float, speed: Float, p: Float, fade: Float, reach: Float) {
        (values.float(Self.amplitude), values.float(Self.speed), f.progress, GLSL.smoothstep(0.2, 1, f.progress), f.progress / 30)
    }

    public static let row: GLWarpRowKernel = segue_ripple_row
    public func constants(_ k: (amplitude: Float, speed: Float, p: Float, fade: Float, reach: Float)) -> SIMD8<Float> {
        .constants(k.amplitude, k.speed, k.p, k.fade, k.reach)
    }
}
