/// gl-transitions' `windowblinds` by Fabien Benetou (MIT): bands of ever more, ever thinner
/// blinds fade at two paces. Ported from windowblinds.glsl.
public struct GLWindowBlinds: GLMix {
    public static let file = "windowblinds", authors = "Fabien Benetou"
    public static let summary = "Ever thinner horizontal blinds fade at two paces (gl-transitions windowblinds)."
    public static let family = TransitionFamily.masks
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (p: Float, settle: Float) { (f.progress, GLSL.smoothstep(0.8, 1, f.progress)) }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: (p: Float, settle: Float)) -> SIMD4<Float> {
        let t = GLSL.mod((uv.y * 100 * k.p).rounded(.down), 2) == 0 ? k.p * (2 - 0.5) : k.p
        return GLSL.mix(a, b, GLSL.mix(t, k.p, k.settle))
    }
}
