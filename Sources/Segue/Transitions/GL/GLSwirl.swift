import Foundation

/// gl-transitions' `Swirl` by Sergey Kosarevsky (MIT): the picture twists about its centre and
/// untwists into the next. Ported from Swirl.glsl.
public struct GLSwirl: GLWarp {
    public static let file = "Swirl", authors = "Sergey Kosarevsky"
    public static let summary = "The picture twists into a whirl and out of it as the next (gl-transitions Swirl)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (t: Float, a: Float) {
        let t = f.progress
        return (t, t <= 0.5 ? GLSL.mix(0, 1, t / 0.5) : GLSL.mix(1, 0, (t - 0.5) / 0.5))
    }

    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: (t: Float, a: Float)) -> GLSamples {
        let radius: Float = 1
        var q = uv - 0.5
        let dist = GLSL.length(q)
        if dist < radius {
            let percent = (radius - dist) / radius, theta = percent * percent * k.a * 8 * 3.14159
            let (s, c) = GLSL.sincos(theta)
            q = vec2(GLSL.dot(q, vec2(c, -s)), GLSL.dot(q, vec2(s, c)))
        }
        return GLSamples(q + 0.5, weight: k.t)
    }
}
