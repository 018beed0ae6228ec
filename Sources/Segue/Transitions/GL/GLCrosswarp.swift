import CSegueKernels

/// gl-transitions' `crosswarp` by Eke Péter (MIT): the two pictures stretch past each other,
/// the outgoing one shrinking into the centre as the incoming one grows out of it, from the
/// right. Ported from crosswarp.glsl.
///
/// Its samples are worked out in C alone (`segue_crosswarp_row`, glwarps.c); here, what a frame shares.
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
}
