import CSegueKernels
import Foundation

/// gl-transitions' `Swirl` by Sergey Kosarevsky (MIT): the picture twists about its centre and
/// untwists into the next. Ported from Swirl.glsl.
///
/// Its samples are worked out in C alone (`segue_swirl_row`, glwarps.c); here, what a frame shares.
public struct GLSwirl: GLKernelWarp {
    public static let file = "Swirl", authors = "Sergey Kosarevsky"
    public static let summary = "The picture twists into a whirl and out of it as the next (gl-transitions Swirl)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The pages mixed once a frame: both pages are read at the twisted point, mixed by the progress.
    public func premix(progress: Double) -> Float? { Float(progress) }

    public func frame(_ f: GLUniforms) -> (t: Float, a: Float) {
        let t = f.progress
        return (t, t <= 0.5 ? GLSL.mix(0, 1, t / 0.5) : GLSL.mix(1, 0, (t - 0.5) / 0.5))
    }

    public static let row: GLWarpRowKernel = segue_swirl_row
    public func constants(_ k: (t: Float, a: Float)) -> SIMD8<Float> { .constants(k.t, k.a) }
}
