import Foundation

/// gl-transitions' `angular` by Fernando Kuteken (MIT): a clock hand sweeps round the centre,
/// uncovering the next picture. Ported from angular.glsl.
public struct GLAngular: GLTransition {
    public static let file = "angular", authors = "Fernando Kuteken"
    public static let summary = "A clock hand sweeps round, uncovering the next picture (gl-transitions angular)."
    public static let family = TransitionFamily.masks
    public static let startingAngle = Parameter.number("startingAngle", default: 90, in: -3600...3600, "Where the hand starts, in degrees.")
    public static let parameters = [startingAngle.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let pi: Float = 3.141592653589, offset = values.float(Self.startingAngle) * pi / 180
        return { uv in
            let turned = GLSL.fract((atan2f(uv.y - 0.5, uv.x - 0.5) + offset + pi) / (2 * pi))
            return GLSL.mix(f.from(uv), f.to(uv), GLSL.step(turned, f.progress))
        }
    }
}
