/// gl-transitions' `heart` by gre (MIT): the next picture shows through a growing heart.
/// Ported from heart.glsl.
public struct GLHeart: GLMask {
    public static let file = "heart", authors = "gre"
    public static let summary = "The next picture in a heart that grows to fill the screen (gl-transitions heart)."
    public static let family = TransitionFamily.masks
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> Float { f.progress }

    @inline(__always) public func weight(_ uv: SIMD2<Float>, _ size: Float) -> Float {
        guard size != 0 else { return 0 }
        let o = (uv - vec2(0.5, 0.4)) / (1.6 * size)
        let a = o.x * o.x + o.y * o.y - 0.3
        return GLSL.step(a * a * a, o.x * o.x * o.y * o.y * o.y)
    }
}
