/// gl-transitions' `crosswarp` by Eke Péter (MIT): the two pictures stretch past each other,
/// the outgoing one shrinking into the centre as the incoming one grows out of it, from the
/// right. Ported from crosswarp.glsl.
public struct GLCrosswarp: GLTransition {
    public static let file = "crosswarp", authors = "Eke Péter"
    public static let summary = "The pictures stretch past each other from the right (gl-transitions crosswarp)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        { p in
            let x = GLSL.smoothstep(0, 1, f.progress * 2 + p.x - 1)
            return GLSL.mix(f.from((p - 0.5) * (1 - x) + 0.5), f.to((p - 0.5) * x + 0.5), x)
        }
    }
}
