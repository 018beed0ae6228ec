/// gl-transitions' `doorway` by gre (MIT): the outgoing picture opens as two doors onto the
/// next, which comes forward over its reflection. Ported from doorway.glsl.
public struct GLDoorway: GLTransition {
    public static let file = "doorway", authors = "gre"
    public static let summary = "Two doors open onto the next picture, which comes forward over its reflection (gl-transitions doorway)."
    public static let family = TransitionFamily.displacements
    public static let reflection = Parameter.number("reflection", default: 0.4, in: 0...1, "How bright the reflection under the picture is.")
    public static let perspective = Parameter.number("perspective", default: 0.4, in: -10...10, "How far the doors turn away.")
    public static let depth = Parameter.number("depth", default: 3, in: 0.01...100, "How far back the next picture starts.")
    public static let parameters = [reflection.erased, perspective.erased, depth.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let reflection = values.float(Self.reflection), perspective = values.float(Self.perspective), depth = values.float(Self.depth)
        let p = f.progress, size = GLSL.mix(1, depth, 1 - p)
        return { uv in
            var from = vec2(-1, -1)
            let slit = 2 * abs(uv.x - 0.5) - p
            if slit > 0 {
                from = uv + (uv.x > 0.5 ? -1 : 1) * vec2(0.5 * p, 0)
                let d = 1 / (1 + perspective * p * (1 - slit))
                from.y = (from.y - d / 2) * d + d / 2
            }
            let to = (uv - 0.5) * size + 0.5
            if GLSL.inside(from) { return f.from(from) }
            if GLSL.inside(to) { return f.to(to) }
            return GLReflection.under(to, reflection, f.to)
        }
    }
}

/// The black floor with a picture's reflection on it, of doorway and swap.
enum GLReflection {
    static let black = vec4(0, 0, 0, 1)

    /// The reflection of the picture `sample` shows, placed at `p`, on black.
    @inline(__always)
    static func under(_ p: vec2, _ reflection: Float, _ sample: (SIMD2<Float>) -> SIMD4<Float>) -> vec4 {
        black + mirrored(p, reflection, sample)
    }

    /// What the reflection of a picture at `p` adds to the floor (nothing outside it).
    @inline(__always)
    static func mirrored(_ p: vec2, _ reflection: Float, _ sample: (SIMD2<Float>) -> SIMD4<Float>) -> vec4 {
        let q = p * vec2(1, -1.2) + vec2(0, -0.02)
        guard GLSL.inside(q) else { return .zero }
        return GLSL.mix(black, sample(q), reflection * GLSL.mix(1, 0, q.y))
    }
}
