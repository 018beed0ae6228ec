import CSegueKernels
import Foundation

/// gl-transitions' `rotate_scale_fade` by Fernando Kuteken (MIT): the picture spins away
/// into the distance and the next spins back out of it, over a plain colour. Ported from
/// rotate_scale_fade.glsl.
///
/// Its samples are worked out in C alone (`segue_rotate_scale_fade_row`, glwarps.c); here, what a frame shares.
public struct GLRotateScaleFade: GLKernelWarp {
    public static let file = "rotate_scale_fade", authors = "Fernando Kuteken"
    public static let summary = "The picture spins into the distance and the next spins out (gl-transitions rotate_scale_fade)."
    public static let family = TransitionFamily.displacements
    public static let center = Parameter.vector("center", default: [0.5, 0.5], in: -10...10, "What it spins about (x, y from the bottom left, 0 to 1).")
    public static let rotations = Parameter.number("rotations", default: 1, in: -100...100, "How many turns.")
    public static let scale = Parameter.number("scale", default: 8, in: 0.01...1000, "How far it shrinks at the middle.")
    public static let backColor = Parameter.vector("backColor", default: [0.15, 0.15, 0.15, 1], in: 0...1,
                                                   "The colour around it (red, green, blue, alpha, 0 to 1).")
    public static let parameters = [center.erased, rotations.erased, scale.erased, backColor.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The pages mixed once a frame: both pages are read at the turned point, mixed by the progress.
    public func premix(progress: Double) -> Float? { Float(progress) }

    /// The centre, the colour around, the turn's cosine and sine over the frame's scale, the progress.
    public typealias Frame = (center: SIMD2<Float>, back: SIMD4<Float>, c: Float, s: Float, p: Float)

    public func frame(_ f: GLUniforms) -> Frame {
        let center = values.vector2(Self.center), p = f.progress
        let back = vec4(values[Self.backColor].map(Float.init))
        let angle = 2 * 3.14159265359 * values.float(Self.rotations) * p
        let scale = GLSL.mix(values.float(Self.scale), 1, 2 * abs(p - 0.5))
        return (center, back, cosf(angle) / scale, sinf(angle) / scale, p)
    }

    public static let row: GLWarpRowKernel = segue_rotate_scale_fade_row
    public func constants(_ k: Frame) -> SIMD8<Float> { .constants(k.center.x, k.center.y, k.c, k.s, k.p) }

    public func outside(_ k: Frame) -> SIMD4<Float> { k.back }
}
