import Foundation

/// gl-transitions' `pinwheel` by Mr Speaker (MIT): eight blades sweep round the centre.
/// Ported from pinwheel.glsl.
public struct GLPinwheel: GLTransition {
    public static let file = "pinwheel", authors = "Mr Speaker"
    public static let summary = "Eight blades turn round the centre, each uncovering the next picture (gl-transitions pinwheel)."
    public static let family = TransitionFamily.masks
    public static let speed = Parameter.number("speed", default: 2, in: -100...100, "How fast the blades turn.")
    public static let parameters = [speed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let turned = f.progress * values.float(Self.speed)
        return { p in
            let position = atan2f(p.y - 0.5, p.x - 0.5) + turned
            let signed = GLSL.sign(f.progress - GLSL.mod(position, 3.1415 / 4))
            return GLSL.mix(f.to(p), f.from(p), GLSL.step(signed, 0.5))
        }
    }
}
