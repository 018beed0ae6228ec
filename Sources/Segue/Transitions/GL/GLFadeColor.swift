/// gl-transitions' `fadecolor` by gre (MIT): the picture fades to a colour, the next out of it.
/// Ported from fadecolor.glsl.
public struct GLFadeColor: GLTransition {
    public static let file = "fadecolor", authors = "gre"
    public static let summary = "A fade through a colour, black by default (gl-transitions fadecolor)."
    public static let family = TransitionFamily.mixes
    public static let color = Parameter.vector("color", default: [0, 0, 0], in: 0...1, "The colour faded through (red, green, blue, 0 to 1).")
    public static let colorPhase = Parameter.number("colorPhase", default: 0.4, in: 0...1, "How long the colour shows: 0 not at all, 0.9 most of the time.")
    public static let parameters = [color.erased, colorPhase.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let c = values.vector3(Self.color), color = vec4(c.x, c.y, c.z, 1), phase = values.float(Self.colorPhase), p = f.progress
        let out = GLSL.smoothstep(1 - phase, 0, p), into = GLSL.smoothstep(phase, 1, p)
        return { uv in GLSL.mix(GLSL.mix(color, f.from(uv), out), GLSL.mix(color, f.to(uv), into), p) }
    }
}
