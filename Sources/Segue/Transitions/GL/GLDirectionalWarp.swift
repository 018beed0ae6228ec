/// gl-transitions' `directionalwarp` by pschroen (MIT): a straight front crosses diagonally,
/// the outgoing picture shrinking into the centre behind it and the next growing out. Ported
/// from directionalwarp.glsl.
public struct GLDirectionalWarp: GLTransition {
    public static let file = "directionalwarp", authors = "pschroen"
    public static let summary = "A front crosses at an angle, warping one picture into the next (gl-transitions directionalwarp)."
    public static let family = TransitionFamily.displacements
    public static let smoothness = Parameter.number("smoothness", default: 0.1, in: 0...10, "How soft the front is.")
    public static let direction = Parameter.vector("direction", default: [-1, 1], in: -1000...1000, "Where the front moves (x, y; y up).")
    public static let parameters = [smoothness.erased, direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let front = GLDirectionalWipe.front(values.vector2(Self.direction), values.float(Self.smoothness), f.progress)
        return { uv in
            let m = front(uv)
            return GLSL.mix(f.from((uv - 0.5) * (1 - m) + 0.5), f.to((uv - 0.5) * m + 0.5), m)
        }
    }
}
