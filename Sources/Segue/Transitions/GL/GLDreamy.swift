import CSegueKernels
import Foundation

/// gl-transitions' `Dreamy` by mikolalysenko (MIT): the pictures cross-fade, each rippling up
/// and down in waves. Ported from Dreamy.glsl.
public struct GLDreamy: GLKernelWarp {
    public static let file = "Dreamy", authors = "mikolalysenko"
    public static let summary = "A wavy dissolve, as in a dream sequence (gl-transitions Dreamy)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> Float { f.progress }
    public static let row: GLWarpRowKernel = segue_dreamy_row
    public func constants(_ progress: Float) -> SIMD8<Float> { .constants(progress) }

    @inline(__always) public func samples(_ p: SIMD2<Float>, _ progress: Float) -> GLSamples {
        // The offsets are only upward: written for y alone, as vectors keep the loop from being vectorised.
        @inline(__always) func offset(_ progress: Float, _ x: Float) -> Float { 0.03 * progress * GLSL.cos(10 * (progress + x)) }
        return GLSamples(from: vec2(p.x, p.y + offset(progress, p.x)), to: vec2(p.x, p.y + offset(1 - progress, p.x)), weight: progress)
    }
}
