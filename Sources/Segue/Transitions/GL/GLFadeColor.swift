/// gl-transitions' `fadecolor` by gre (MIT): the picture fades to a colour, the next out of it.
/// Ported from fadecolor.glsl.
public struct GLFadeColor: GLAffineMix {
    public static let file = "fadecolor", authors = "gre"
    public static let summary = "A fade through a colour, black by default (gl-transitions fadecolor)."
    public static let family = TransitionFamily.mixes
    public static let color = Parameter.vector("color", default: [0, 0, 0], in: 0...1, "The colour faded through (red, green, blue, 0 to 1).")
    public static let colorPhase = Parameter.number("colorPhase", default: 0.4, in: 0...1, "How long the colour shows: 0 not at all, 0.9 most of the time.")
    public static let parameters = [color.erased, colorPhase.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (color: SIMD4<Float>, out: Float, into: Float, p: Float) {
        let c = values.vector3(Self.color), phase = values.float(Self.colorPhase), p = f.progress
        return (vec4(c.x, c.y, c.z, 1), GLSL.smoothstep(1 - phase, 0, p), GLSL.smoothstep(phase, 1, p), p)
    }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: (color: SIMD4<Float>, out: Float, into: Float, p: Float)) -> SIMD4<Float> {
        GLSL.mix(GLSL.mix(k.color, a, k.out), GLSL.mix(k.color, b, k.into), k.p)
    }
}
