/// gl-transitions' `fadegrayscale` by gre (MIT): the picture fades to grey as it gives way to
/// the next, which gains its colours back. Ported from fadegrayscale.glsl.
public struct GLFadeGrayscale: GLAffineMix {
    public static let file = "fadegrayscale", authors = "gre"
    public static let summary = "A cross-fade through grey (gl-transitions fadegrayscale)."
    public static let family = TransitionFamily.mixes
    public static let intensity = Parameter.number("intensity", default: 0.3, in: 0...1, "How long the pictures stay grey: 0 not at all, 0.9 most of the time.")
    public static let parameters = [intensity.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (out: Float, into: Float, p: Float) {
        let intensity = values.float(Self.intensity), p = f.progress
        return (GLSL.smoothstep(1 - intensity, 0, p), GLSL.smoothstep(intensity, 1, p), p)
    }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: (out: Float, into: Float, p: Float)) -> SIMD4<Float> {
        @inline(__always) func gray(_ c: vec4) -> vec4 { let v = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; return vec4(v, v, v, 1) }
        return GLSL.mix(GLSL.mix(gray(a), a, k.out), GLSL.mix(gray(b), b, k.into), k.p)
    }
}
