import CSegueKernels
import Foundation

/// gl-transitions' `Swirl` by Sergey Kosarevsky (MIT): the picture twists about its centre and
/// untwists into the next. Ported from Swirl.glsl.
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

    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: (t: Float, a: Float)) -> GLSamples {
        // In x and y apart, without a branch: vectors and branches keep the pixels' loop from
        // being vectorised.
        let radius: Float = 1
        let x = uv.x - 0.5, y = uv.y - 0.5, dist = (x * x + y * y).squareRoot()
        let percent = (radius - dist) / radius, theta = percent * percent * k.a * 8 * 3.14159
        let (s, c) = GLSL.sincos(theta), inside = dist < radius
        return GLSamples(vec2((inside ? x * c - y * s : x) + 0.5, (inside ? x * s + y * c : y) + 0.5), weight: k.t)
    }
}
