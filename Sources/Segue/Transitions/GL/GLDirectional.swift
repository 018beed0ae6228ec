/// gl-transitions' `Directional` by Gaëtan Renaudeau (MIT): the incoming picture pushes the
/// outgoing one out toward `direction`. Ported from Directional.glsl.
public struct GLDirectional: GLTransition {
    public static let file = "Directional", authors = "Gaëtan Renaudeau"
    public static let summary = "The next picture pushes the last one out (gl-transitions Directional)."
    public static let family = TransitionFamily.displacements
    public static let direction = Parameter.vector("direction", default: [0, 1], in: -1000...1000,
                                                   "Where the pictures move from, by the signs of x and y (y up).")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let d = values.vector2(Self.direction), s = vec2(GLSL.sign(d.x), GLSL.sign(d.y))
        return { uv in
            let p = uv + f.progress * s, q = GLSL.fract(p)
            let shown: Float = p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1 ? 1 : 0
            return GLSL.mix(f.to(q), f.from(q), shown)
        }
    }
}
