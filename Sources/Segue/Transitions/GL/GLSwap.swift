/// gl-transitions' `swap` by gre (MIT): the two pictures swing past each other in depth,
/// over their reflections. Ported from swap.glsl.
public struct GLSwap: GLTransition {
    public static let file = "swap", authors = "gre"
    public static let summary = "The pictures swing past each other in depth over their reflections (gl-transitions swap)."
    public static let family = TransitionFamily.displacements
    public static let reflection = Parameter.number("reflection", default: 0.4, in: 0...1, "How bright the reflections are.")
    public static let perspective = Parameter.number("perspective", default: 0.2, in: -10...10, "How far the pictures turn.")
    public static let depth = Parameter.number("depth", default: 3, in: 0.01...100, "How far back the pictures go.")
    public static let parameters = [reflection.erased, perspective.erased, depth.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let reflection = values.float(Self.reflection), perspective = values.float(Self.perspective), depth = values.float(Self.depth)
        let p = f.progress
        let sizeA = GLSL.mix(1, depth, p), perspA = perspective * p
        let sizeB = GLSL.mix(1, depth, 1 - p), perspB = perspective * (1 - p)
        return { uv in
            let from = (uv + vec2(0, -0.5)) * vec2(sizeA / (1 - perspective * p), sizeA / (1 - sizeA * perspA * uv.x)) + vec2(0, 0.5)
            let to = (uv + vec2(-1, -0.5)) * vec2(sizeB / (1 - perspective * (1 - p)), sizeB / (1 - sizeB * perspB * (0.5 - uv.x))) + vec2(1, 0.5)
            if p < 0.5 {
                if GLSL.inside(from) { return f.from(from) }
                if GLSL.inside(to) { return f.to(to) }
            }
            if GLSL.inside(to) { return f.to(to) }
            if GLSL.inside(from) { return f.from(from) }
            return GLReflection.under(from, reflection, f.from) + GLReflection.mirrored(to, reflection, f.to)
        }
    }
}
