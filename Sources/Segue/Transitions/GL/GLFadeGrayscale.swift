/// gl-transitions' `fadegrayscale` by gre (MIT): the picture fades to grey as it gives way to
/// the next, which gains its colours back. Ported from fadegrayscale.glsl.
public struct GLFadeGrayscale: GLTransition {
    public static let file = "fadegrayscale", authors = "gre"
    public static let summary = "A cross-fade through grey (gl-transitions fadegrayscale)."
    public static let family = TransitionFamily.mixes
    public static let intensity = Parameter.number("intensity", default: 0.3, in: 0...1, "How long the pictures stay grey: 0 not at all, 0.9 most of the time.")
    public static let parameters = [intensity.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let intensity = values.float(Self.intensity), p = f.progress
        let out = GLSL.smoothstep(1 - intensity, 0, p), into = GLSL.smoothstep(intensity, 1, p)
        func gray(_ c: vec4) -> vec4 { let v = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; return vec4(v, v, v, 1) }
        return { uv in
            let a = f.from(uv), b = f.to(uv)
            return GLSL.mix(GLSL.mix(gray(a), a, out), GLSL.mix(gray(b), b, into), p)
        }
    }
}
