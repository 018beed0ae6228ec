import Foundation

/// gl-transitions' `pinwheel` by Mr Speaker (MIT): eight blades sweep round the centre.
/// Ported from pinwheel.glsl.
public struct GLPinwheel: GLMask {
    public static let file = "pinwheel", authors = "Mr Speaker"
    public static let summary = "Eight blades turn round the centre, each uncovering the next picture (gl-transitions pinwheel)."
    public static let family = TransitionFamily.masks
    public static let speed = Parameter.number("speed", default: 2, in: -100...100, "How fast the blades turn.")
    public static let parameters = [speed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (turned: Float, progress: Float) { (f.progress * values.float(Self.speed), f.progress) }

    /// The GLSL mixes the other way round: mix(to, from, step(signed, 0.5)).
    @inline(__always) public func weight(_ p: SIMD2<Float>, _ k: (turned: Float, progress: Float)) -> Float {
        let position = GLSL.atan(p.y - 0.5, p.x - 0.5) + k.turned
        let signed = GLSL.sign(k.progress - GLSL.mod(position, 3.1415 / 4))
        return 1 - GLSL.step(signed, 0.5)
    }
}
