/// gl-transitions' `heart` by gre (MIT): the next picture shows through a growing heart.
/// Ported from heart.glsl.
public struct GLHeart: GLTransition {
    public static let file = "heart", authors = "gre"
    public static let summary = "The next picture in a heart that grows to fill the screen (gl-transitions heart)."
    public static let family = TransitionFamily.masks
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let size = f.progress
        return { uv in
            var inside: Float = 0
            if size != 0 {
                let o = (uv - vec2(0.5, 0.4)) / (1.6 * size)
                let a = o.x * o.x + o.y * o.y - 0.3
                inside = GLSL.step(a * a * a, o.x * o.x * o.y * o.y * o.y)
            }
            return GLSL.mix(f.from(uv), f.to(uv), inside)
        }
    }
}
