import Foundation

/// gl-transitions' `kaleidoscope` by nwoeanhinnogaehr (MIT): the pictures fold into a turning
/// kaleidoscope and out of it. Ported from kaleidoscope.glsl.
public struct GLKaleidoscope: GLTransition {
    public static let file = "kaleidoscope", authors = "nwoeanhinnogaehr"
    public static let summary = "The pictures fold into a turning kaleidoscope and out (gl-transitions kaleidoscope)."
    public static let family = TransitionFamily.displacements
    public static let speed = Parameter.number("speed", default: 1, in: -100...100, "How fast the mirrors turn.")
    public static let angle = Parameter.number("angle", default: 1, in: -100...100, "How far each fold turns from the last.")
    public static let power = Parameter.number("power", default: 1.5, in: 0...100, "How the turning speeds up.")
    public static let parameters = [speed.erased, angle.erased, power.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let p = f.progress, angle = values.float(Self.angle)
        var t = powf(p, values.float(Self.power)) * values.float(Self.speed)
        // The seven folds' turns are the same for every pixel.
        let turns = (0..<7).map { _ -> (s: Float, c: Float) in
            defer { t += angle }
            return (sinf(t), cosf(t))
        }
        let folded = 1 - 2 * abs(p - 0.5)
        return { uv in
            var q = uv - 0.5
            for (s, c) in turns {
                q = vec2(s * q.x + c * q.y, s * q.y - c * q.x)
                q = vec2(abs(GLSL.mod(q.x, 2) - 1), abs(GLSL.mod(q.y, 2) - 1))
            }
            return GLSL.mix(GLSL.mix(f.from(uv), f.to(uv), p), GLSL.mix(f.from(q), f.to(q), p), folded)
        }
    }
}
