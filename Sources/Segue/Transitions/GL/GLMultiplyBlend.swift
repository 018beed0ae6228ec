/// gl-transitions' `multiply_blend` by Fernando Kuteken (MIT): the pictures pass through their
/// product, as layers in multiply mode. Ported from multiply_blend.glsl.
public struct GLMultiplyBlend: GLAffineMix {
    public static let file = "multiply_blend", authors = "Fernando Kuteken"
    public static let summary = "A cross-fade through the pictures multiplied (gl-transitions multiply_blend)."
    public static let family = TransitionFamily.mixes
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> Float { f.progress }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ p: Float) -> SIMD4<Float> {
        p < 0.5 ? GLSL.mix(a, a * b, 2 * p) : GLSL.mix(a * b, b, 2 * p - 1)
    }
}
