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

    /// The incoming page's weight on the row at height v: above 1 in the fast bands, where GLSL's
    /// mix carries the pages on past the incoming one.
    @inline(__always) func weight(_ v: Float, _ k: (p: Float, settle: Float)) -> Float {
        let t = GLSL.mod((v * 100 * k.p).rounded(.down), 2) == 0 ? k.p * (2 - 0.5) : k.p
        return GLSL.mix(t, k.p, k.settle)
    }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: (p: Float, settle: Float)) -> SIMD4<Float> {
        GLSL.mix(a, b, weight(uv.y, k))
    }

    /// A row's weight is the same across it: each row is the pages mixed by one affine map.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), h = Float(height), me = self
        return { y, pages, out in
            let w = me.weight(1 - (Float(y) + 0.5) / h, k)
            if let map = GLAffine.map({ GLSL.mix($0, $1, w) }) {
                GLAffine.mix(map, pages.a(y), pages.b(y), into: out, count: width)
            } else {
                let a = pages.a(y), b = pages.b(y)
                for x in 0..<width { out[x] = GLFrame.pixel(GLSL.mix(GLFrame.color(a[x]), GLFrame.color(b[x]), w)) }
            }
        }
    }
}
