/// gl-transitions' `burn` by gre (MIT): the pictures cross-fade through a glowing colour.
/// Ported from burn.glsl.
public struct GLBurn: GLAffineMix {
    public static let file = "burn", authors = "gre"
    public static let summary = "A cross-fade through a glowing colour (gl-transitions burn)."
    public static let family = TransitionFamily.mixes
    public static let color = Parameter.vector("color", default: [0.9, 0.4, 0.2], in: 0...1, "The glow's red, green and blue (0 to 1 each).")
    public static let parameters = [color.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (glowA: SIMD4<Float>, glowB: SIMD4<Float>, p: Float) {
        let c = values.vector3(Self.color), p = f.progress
        return (vec4(p * c.x, p * c.y, p * c.z, 1), vec4((1 - p) * c.x, (1 - p) * c.y, (1 - p) * c.z, 1), p)
    }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: (glowA: SIMD4<Float>, glowB: SIMD4<Float>, p: Float)) -> SIMD4<Float> {
        GLSL.mix(a + k.glowA, b + k.glowB, k.p)
    }
}
