import CSegueKernels

/// gl-transitions' `crosswarp` by Eke Péter (MIT): the two pictures stretch past each other,
/// the outgoing one shrinking into the centre as the incoming one grows out of it, from the
/// right. Ported from crosswarp.glsl.
public struct GLCrosswarp: GLKernelWarp {
    public static let file = "crosswarp", authors = "Eke Péter"
    public static let summary = "The pictures stretch past each other from the right (gl-transitions crosswarp)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> Float { f.progress }
    public static let row: GLWarpRowKernel = segue_crosswarp_row
    public func constants(_ progress: Float) -> SIMD8<Float> { .constants(progress) }

    @inline(__always) public func samples(_ p: SIMD2<Float>, _ progress: Float) -> GLSamples {
        let x = GLSL.smoothstep(0, 1, progress * 2 + p.x - 1)
        let u = p.x - 0.5, v = p.y - 0.5   // in x and y apart: vectors keep the loop from being vectorised
        return GLSamples(from: vec2(u * (1 - x) + 0.5, v * (1 - x) + 0.5), to: vec2(u * x + 0.5, v * x + 0.5), weight: x)
    }
}
