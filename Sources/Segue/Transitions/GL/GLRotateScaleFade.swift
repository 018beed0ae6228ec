import Foundation

/// gl-transitions' `rotate_scale_fade` by Fernando Kuteken (MIT): the picture spins away
/// into the distance and the next spins back out of it, over a plain colour. Ported from
/// rotate_scale_fade.glsl.
public struct GLRotateScaleFade: GLWarp {
    public static let file = "rotate_scale_fade", authors = "Fernando Kuteken"
    public static let summary = "The picture spins into the distance and the next spins out (gl-transitions rotate_scale_fade)."
    public static let family = TransitionFamily.displacements
    public static let center = Parameter.vector("center", default: [0.5, 0.5], in: -10...10, "What it spins about (x, y from the bottom left, 0 to 1).")
    public static let rotations = Parameter.number("rotations", default: 1, in: -100...100, "How many turns.")
    public static let scale = Parameter.number("scale", default: 8, in: 0.01...1000, "How far it shrinks at the middle.")
    public static let backColor = Parameter.vector("backColor", default: [0.15, 0.15, 0.15, 1], in: 0...1,
                                                   "The colour around it (red, green, blue, alpha, 0 to 1).")
    public static let parameters = [center.erased, rotations.erased, scale.erased, backColor.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (center: SIMD2<Float>, back: SIMD4<Float>, c: Float, s: Float, scale: Float, p: Float) {
        let center = values.vector2(Self.center), p = f.progress
        let back = vec4(values[Self.backColor].map(Float.init))
        let angle = 2 * 3.14159265359 * values.float(Self.rotations) * p
        return (center, back, cosf(angle), sinf(angle), GLSL.mix(values.float(Self.scale), 1, 2 * abs(p - 0.5)), p)
    }

    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: (center: SIMD2<Float>, back: SIMD4<Float>, c: Float, s: Float, scale: Float, p: Float)) -> GLSamples {
        let d = uv - k.center, dist = GLSL.length(d), dir = d / dist
        let q = k.center + vec2(dir.x * k.c - dir.y * k.s, dir.x * k.s + dir.y * k.c) * dist / k.scale
        if q.x < 0 || q.x > 1 || q.y < 0 || q.y > 1 { return .outside }
        return GLSamples(q, weight: k.p)
    }

    public func outside(_ k: (center: SIMD2<Float>, back: SIMD4<Float>, c: Float, s: Float, scale: Float, p: Float)) -> SIMD4<Float> { k.back }
}
