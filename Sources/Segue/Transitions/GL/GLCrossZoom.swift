import Foundation

/// gl-transitions' `CrossZoom` by rectalogic (MIT; after glfx.js's zoom blur): a zoom blur
/// toward a centre that travels across the screen while the pictures cross-fade. Ported from
/// CrossZoom.glsl: 41 samples along each pixel's line to the centre, started at a pseudo-random
/// offset (the shader's sine hash).
public struct GLCrossZoom: GLTransition {
    public static let file = "CrossZoom", authors = "rectalogic"
    public static let summary = "A zoom blur that crosses the screen as the pictures fade (gl-transitions CrossZoom)."
    public static let family = TransitionFamily.displacements
    public static let strength = Parameter.number("strength", default: 0.4, in: 0...10, "How long the blur streaks are at the middle.")
    public static let parameters = [strength.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let p = f.progress
        let center = vec2(0.25 + 0.5 * p, 0.5)
        let dissolve: Float
        if p == 0 { dissolve = 0 } else if p == 1 { dissolve = 1 } else {
            let t = p / 0.5
            dissolve = t < 1 ? 0.5 * powf(2, 10 * (t - 1)) : 0.5 * (-powf(2, -10 * (t - 1)) + 2)
        }
        let strength = -values.float(Self.strength) / 2 * (cosf(GLSL.pi * p / 0.5) - 1)
        return { uv in
            let toCenter = center - uv, offset = GLSL.rand(uv)
            var color = vec4.zero, total: Float = 0
            for t in 0...40 {
                let percent = (Float(t) + offset) / 40, weight = 4 * (percent - percent * percent)
                let s = uv + toCenter * percent * strength
                color += GLSL.mix(f.from(s), f.to(s), dissolve) * weight
                total += weight
            }
            return color / total
        }
    }
}
