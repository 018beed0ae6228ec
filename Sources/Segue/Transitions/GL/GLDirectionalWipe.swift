/// gl-transitions' `directionalwipe` by gre (MIT): a soft straight edge wipes across toward
/// `direction`. Ported from directionalwipe.glsl.
public struct GLDirectionalWipe: GLMask {
    public static let file = "directionalwipe", authors = "gre"
    public static let summary = "A soft straight edge wipes across at any angle (gl-transitions directionalwipe)."
    public static let family = TransitionFamily.masks
    public static let direction = Parameter.vector("direction", default: [1, -1], in: -1000...1000, "Where the edge moves (x, y; y up).")
    public static let smoothness = Parameter.number("smoothness", default: 0.5, in: 0...10, "How soft the edge is.")
    public static let parameters = [direction.erased, smoothness.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (front: Front, started: Float) {
        (Front(values.vector2(Self.direction), values.float(Self.smoothness), f.progress), f.progress > 0 ? 1 : 0)
    }

    @inline(__always) public func weight(_ uv: SIMD2<Float>, _ k: (front: Front, started: Float)) -> Float { k.started * k.front.passed(uv) }

    /// The straight soft front of directionalwipe and directionalwarp: 1 where it has passed
    /// (the next picture shows), 0 ahead of it, moving toward `direction`.
    public struct Front: Sendable {
        let v: vec2, edge: Float, smoothness: Float

        init(_ direction: vec2, _ smoothness: Float, _ progress: Float) {
            var v = direction / GLSL.length(direction)
            v /= abs(v.x) + abs(v.y)
            self.v = v
            edge = (v.x + v.y) * 0.5 - 0.5 + progress * (1 + smoothness)
            self.smoothness = smoothness
        }

        @inline(__always) func passed(_ uv: vec2) -> Float { 1 - GLSL.smoothstep(-smoothness, 0, v.x * uv.x + v.y * uv.y - edge) }
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
