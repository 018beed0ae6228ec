/// gl-transitions' `squeeze` by gre (MIT): the picture is squeezed to a line across the middle,
/// its colours parting, over the next. Ported from squeeze.glsl.
public struct GLSqueeze: GLTransition {
    public static let file = "squeeze", authors = "gre"
    public static let summary = "The picture is squeezed flat across the middle, its colours parting (gl-transitions squeeze)."
    public static let family = TransitionFamily.displacements
    public static let colorSeparation = Parameter.number("colorSeparation", default: 0.04, in: -1...1, "How far red and blue part from green.")
    public static let parameters = [colorSeparation.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let p = f.progress, off = vec2(0, p * values.float(Self.colorSeparation))
        return { uv in
            let y = 0.5 + (uv.y - 0.5) / (1 - p)
            if y < 0 || y > 1 { return f.to(uv) }
            let q = vec2(uv.x, y), c = f.from(q)
            return vec4(f.from(q - off).x, c.y, f.from(q + off).z, c.w)
        }
    }
}
