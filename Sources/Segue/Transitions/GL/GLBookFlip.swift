/// gl-transitions' `BookFlip` by hong (MIT): the page turns like a book's, shaded as it
/// stands up. Ported from BookFlip.glsl.
public struct GLBookFlip: GLTransition {
    public static let file = "BookFlip", authors = "hong"
    public static let summary = "The page turns from the right like a book's (gl-transitions BookFlip)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let p = f.progress, v = max(0.7, abs(p - 0.5) * 2), shade = vec4(v, v, v, 1)
        return { uv in
            let turned = GLSL.step(1 - p, uv.x)
            if uv.x < 0.5 {
                let left = vec2((uv.x - 0.5) / (p - 0.5) * 0.5 + 0.5, (uv.y - 0.5) / (0.5 + (1 - p) * (0.5 - uv.x) / 0.5) * 0.5 + 0.5)
                return GLSL.mix(f.from(uv), f.to(left) * shade, turned)
            }
            let right = vec2((uv.x - p) / (0.5 - p) * 0.5, (uv.y - 0.5) / (0.5 + p * (uv.x - 0.5) / 0.5) * 0.5 + 0.5)
            return GLSL.mix(f.from(right) * shade, f.to(uv), turned)
        }
    }
}
