import Foundation

/// gl-transitions' `Swirl` by Sergey Kosarevsky (MIT): the picture twists about its centre and
/// untwists into the next. Ported from Swirl.glsl.
public struct GLSwirl: GLTransition {
    public static let file = "Swirl", authors = "Sergey Kosarevsky"
    public static let summary = "The picture twists into a whirl and out of it as the next (gl-transitions Swirl)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let t = f.progress, radius: Float = 1
        let a = t <= 0.5 ? GLSL.mix(0, 1, t / 0.5) : GLSL.mix(1, 0, (t - 0.5) / 0.5)
        return { uv in
            var q = uv - 0.5
            let dist = GLSL.length(q)
            if dist < radius {
                let percent = (radius - dist) / radius, theta = percent * percent * a * 8 * 3.14159
                let s = sinf(theta), c = cosf(theta)
                q = vec2(GLSL.dot(q, vec2(c, -s)), GLSL.dot(q, vec2(s, c)))
            }
            q += 0.5
            return GLSL.mix(f.from(q), f.to(q), t)
        }
    }
}
