/// gl-transitions' `LinearBlur` by gre (MIT): the pictures blur as they cross-fade, most at the
/// middle. Ported from LinearBlur.glsl (a box of 6 x 6 samples).
public struct GLLinearBlur: GLTransition {
    public static let file = "LinearBlur", authors = "gre"
    public static let summary = "A cross-fade through a blur (gl-transitions LinearBlur)."
    public static let family = TransitionFamily.mixes
    public static let intensity = Parameter.number("intensity", default: 0.1, in: 0...10, "How wide the blur is at the middle.")
    public static let parameters = [intensity.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let passes = 6, p = f.progress
        let disp = values.float(Self.intensity) * (0.5 - abs(0.5 - p))
        let steps = (0..<passes).map { disp * (Float($0) / Float(passes) - 0.5) }
        return { uv in
            var a = vec4.zero, b = vec4.zero
            for x in steps {
                for y in steps {
                    let s = uv + vec2(x, y)
                    a += f.from(s)
                    b += f.to(s)
                }
            }
            let n = Float(passes * passes)
            return GLSL.mix(a / n, b / n, p)
        }
    }
}
