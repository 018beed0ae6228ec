import Foundation

/// gl-transitions' `ripple` by gre (MIT): rings ripple out from the centre of the outgoing
/// picture as the next fades in. Ported from ripple.glsl.
public struct GLRipple: GLTransition {
    public static let file = "ripple", authors = "gre"
    public static let summary = "Rings ripple across the picture as the next fades in (gl-transitions ripple)."
    public static let family = TransitionFamily.displacements
    public static let amplitude = Parameter.number("amplitude", default: 100, in: 0...10000, "How many rings, and how close.")
    public static let speed = Parameter.number("speed", default: 50, in: -10000...10000, "How fast the rings travel.")
    public static let parameters = [amplitude.erased, speed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let amplitude = values.float(Self.amplitude), speed = values.float(Self.speed), p = f.progress
        let fade = GLSL.smoothstep(0.2, 1, p)
        return { uv in
            let dir = uv - 0.5, dist = GLSL.length(dir)
            let offset = dir * (sinf(p * dist * amplitude - p * speed) + 0.5) / 30 * p
            return GLSL.mix(f.from(uv + offset), f.to(uv), fade)
        }
    }
}
