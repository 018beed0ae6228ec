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

    /// Whether the row at height v is in a fast band, where the pages mix at one and a half times
    /// the pace.
    @inline(__always) func fast(_ v: Float, _ k: (p: Float, settle: Float)) -> Bool { GLSL.mod((v * 100 * k.p).rounded(.down), 2) == 0 }

    /// The incoming page's weight in a fast band or a slow one: above 1 in the fast ones, where
    /// GLSL's mix carries the pages on past the incoming one.
    @inline(__always) func weight(fast: Bool, _ k: (p: Float, settle: Float)) -> Float {
        GLSL.mix(fast ? k.p * (2 - 0.5) : k.p, k.p, k.settle)
    }

    @inline(__always) public func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: (p: Float, settle: Float)) -> SIMD4<Float> {
        GLSL.mix(a, b, weight(fast: fast(uv.y, k), k))
    }

    /// A row's weight is the same across it, and one of two: each row is the pages mixed by one
    /// of two affine maps, made once a frame.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), h = Float(height), me = self
        let maps = [true, false].map { fast in GLAffine.map { GLSL.mix($0, $1, me.weight(fast: fast, k)) } }
        guard let fastMap = maps[0], let slowMap = maps[1] else { return mixRows(progress: progress, width: width, height: height) }
        return { y, pages, out in
            let map = me.fast(1 - (Float(y) + 0.5) / h, k) ? fastMap : slowMap
            GLAffine.mix(map, pages.a(y), pages.b(y), into: out, count: width)
        }
    }
}
