/// gl-transitions' `Directional` by Gaëtan Renaudeau (MIT): the incoming picture pushes the
/// outgoing one out toward `direction`. Ported from Directional.glsl.
public struct GLDirectional: GLSampledWarp {
    public static let file = "Directional", authors = "Gaëtan Renaudeau"
    public static let summary = "The next picture pushes the last one out (gl-transitions Directional)."
    public static let family = TransitionFamily.displacements
    public static let direction = Parameter.vector("direction", default: [0, 1], in: -1000...1000,
                                                   "Where the pictures move from, by the signs of x and y (y up).")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (shift: SIMD2<Float>, progress: Float) {
        let d = values.vector2(Self.direction)
        return (vec2(GLSL.sign(d.x), GLSL.sign(d.y)), f.progress)
    }

    /// The GLSL mixes the other way round: mix(to(q), from(q), shown).
    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: (shift: SIMD2<Float>, progress: Float)) -> GLSamples {
        let p = uv + k.progress * k.shift, q = GLSL.fract(p)
        let shown: Float = p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1 ? 1 : 0
        return GLSamples(q, weight: 1 - shown)
    }
}
