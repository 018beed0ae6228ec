/// gl-transitions' `colorphase` by gre (MIT): red, green, blue and alpha each cross over in a
/// window of their own. Ported from colorphase.glsl.
public struct GLColorPhase: GLAffineMix {
    public static let file = "colorphase", authors = "gre"
    public static let summary = "Each colour channel crosses over at its own time (gl-transitions colorphase)."
    public static let family = TransitionFamily.mixes
    public static let fromStep = Parameter.vector("fromStep", default: [0, 0.2, 0.4, 0], in: 0...1,
                                                  "When red, green, blue and alpha each start to cross over (0 to 1).")
    public static let toStep = Parameter.vector("toStep", default: [0.6, 0.8, 1, 1], in: 0...1,
                                                "When red, green, blue and alpha have each crossed over (0 to 1).")
    public static let parameters = [fromStep.erased, toStep.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> SIMD4<Float> {
        let from = values[Self.fromStep].map(Float.init), to = values[Self.toStep].map(Float.init)
        return vec4((0..<4).map { GLSL.smoothstep(from[$0], to[$0], f.progress) })
    }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: SIMD4<Float>) -> SIMD4<Float> { a + (b - a) * k }
}
