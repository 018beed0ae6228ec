/// gl-transitions' `windowslice` by gre (MIT): slats, each opening from its left, the wave of
/// openings sweeping across. Ported from windowslice.glsl.
public struct GLWindowSlice: GLTransition {
    public static let file = "windowslice", authors = "gre"
    public static let summary = "Vertical slats open one after another across the screen (gl-transitions windowslice)."
    public static let family = TransitionFamily.masks
    public static let count = Parameter.number("count", default: 10, in: 1...1000, "How many slats.")
    public static let smoothness = Parameter.number("smoothness", default: 0.5, in: 0...10, "How far behind each other the slats open.")
    public static let parameters = [count.erased, smoothness.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let count = values.float(Self.count), smoothness = values.float(Self.smoothness)
        return { p in
            let pr = GLSL.smoothstep(-smoothness, 0, p.x - f.progress * (1 + smoothness))
            return GLSL.mix(f.from(p), f.to(p), GLSL.step(pr, GLSL.fract(count * p.x)))
        }
    }
}
