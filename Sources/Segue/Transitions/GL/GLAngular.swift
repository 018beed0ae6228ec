import Foundation

/// gl-transitions' `angular` by Fernando Kuteken (MIT): a clock hand sweeps round the centre,
/// uncovering the next picture. Ported from angular.glsl.
public struct GLAngular: GLMask {
    public static let file = "angular", authors = "Fernando Kuteken"
    public static let summary = "A clock hand sweeps round, uncovering the next picture (gl-transitions angular)."
    public static let family = TransitionFamily.masks
    public static let startingAngle = Parameter.number("startingAngle", default: 90, in: -3600...3600, "Where the hand starts, in degrees.")
    public static let parameters = [startingAngle.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (offset: Float, progress: Float) {
        (values.float(Self.startingAngle) * 3.141592653589 / 180, f.progress)
    }

    @inline(__always) public func weight(_ uv: SIMD2<Float>, _ k: (offset: Float, progress: Float)) -> Float {
        let pi: Float = 3.141592653589
        let turned = GLSL.fract((GLSL.atan(uv.y - 0.5, uv.x - 0.5) + k.offset + pi) / (2 * pi))
        return GLSL.step(turned, k.progress)
    }
}
