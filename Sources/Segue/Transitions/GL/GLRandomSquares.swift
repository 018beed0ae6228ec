/// gl-transitions' `randomsquares` by gre (MIT): a grid of squares, each turning over at a
/// pseudo-random moment (the shaders' sine hash). Ported from randomsquares.glsl.
public struct GLRandomSquares: GLMask {
    public static let file = "randomsquares", authors = "gre"
    public static let summary = "Squares of a grid turn to the next picture in random order (gl-transitions randomsquares)."
    public static let family = TransitionFamily.masks
    public static let size = Parameter.numbers("size", default: [10, 10], in: 1...10000, expected: "2 whole numbers",
                                               "The grid's columns and rows.") { $0.count == 2 && $0.allSatisfy { $0.rounded() == $0 } }
    public static let smoothness = Parameter.number("smoothness", default: 0.5, in: 0...10, "How gradually each square turns.")
    public static let parameters = [size.erased, smoothness.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (size: SIMD2<Float>, smoothness: Float, front: Float) {
        let smoothness = values.float(Self.smoothness)
        return (values.vector2(Self.size), smoothness, f.progress * (1 + smoothness))
    }

    @inline(__always) public func weight(_ p: SIMD2<Float>, _ k: (size: SIMD2<Float>, smoothness: Float, front: Float)) -> Float {
        GLSL.smoothstep(0, -k.smoothness, GLSL.rand((k.size * p).rounded(.down)) - k.front)
    }
}
