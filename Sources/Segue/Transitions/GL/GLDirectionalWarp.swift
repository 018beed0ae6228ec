import CSegueKernels

/// gl-transitions' `directionalwarp` by pschroen (MIT): a straight front crosses diagonally,
/// the outgoing picture shrinking into the centre behind it and the next growing out. Ported
/// from directionalwarp.glsl.
///
/// Its samples are worked out in C alone (`segue_directionalwarp_row`, glwarps.c); here, what a frame shares.
public struct GLDirectionalWarp: GLKernelWarp {
    public static let file = "directionalwarp", authors = "pschroen"
    public static let summary = "A front crosses at an angle, warping one picture into the next (gl-transitions directionalwarp)."
    public static let family = TransitionFamily.displacements
    public static let smoothness = Parameter.number("smoothness", default: 0.1, in: 0...10, "How soft the front is.")
    public static let direction = Parameter.vector("direction", default: [-1, 1], in: -1000...1000, "Where the front moves (x, y; y up).")
    public static let parameters = [smoothness.erased, direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> GLDirectionalWipe.Front {
        GLDirectionalWipe.Front(values.vector2(Self.direction), values.float(Self.smoothness), f.progress)
    }

    public static let row: GLWarpRowKernel = segue_directionalwarp_row
    public func constants(_ front: GLDirectionalWipe.Front) -> SIMD8<Float> { .constants(front.v.x, front.v.y, front.edge, front.smoothness) }
}
