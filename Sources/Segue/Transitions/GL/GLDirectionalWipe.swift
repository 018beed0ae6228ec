/// gl-transitions' `directionalwipe` by gre (MIT): a soft straight edge wipes across toward
/// `direction`. Ported from directionalwipe.glsl.
public struct GLDirectionalWipe: GLTransition {
    public static let file = "directionalwipe", authors = "gre"
    public static let summary = "A soft straight edge wipes across at any angle (gl-transitions directionalwipe)."
    public static let family = TransitionFamily.masks
    public static let direction = Parameter.vector("direction", default: [1, -1], in: -1000...1000, "Where the edge moves (x, y; y up).")
    public static let smoothness = Parameter.number("smoothness", default: 0.5, in: 0...10, "How soft the edge is.")
    public static let parameters = [direction.erased, smoothness.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let smoothness = values.float(Self.smoothness), front = Self.front(values.vector2(Self.direction), smoothness, f.progress)
        let started: Float = f.progress > 0 ? 1 : 0
        return { uv in GLSL.mix(f.from(uv), f.to(uv), started * front(uv)) }
    }

    /// The straight soft front of directionalwipe and directionalwarp: 1 where it has passed
    /// (the next picture shows), 0 ahead of it, moving toward `direction`.
    static func front(_ direction: vec2, _ smoothness: Float, _ progress: Float) -> (vec2) -> Float {
        var v = direction / GLSL.length(direction)
        v /= abs(v.x) + abs(v.y)
        let edge = (v.x + v.y) * 0.5 - 0.5 + progress * (1 + smoothness)
        return { uv in 1 - GLSL.smoothstep(-smoothness, 0, GLSL.dot(v, uv) - edge) }
    }
}
