/// FFmpeg xfade's `fadegrays`: the outgoing page fades to its own grays, then the incoming
/// one fades in from its grays, the two overlapping. Ported from vf_xfade.c (its RGB way: a
/// pixel's gray is the mean of its three channels).
public struct FadeGrays: PixelTransition {
    public static let name = "fadegrays"
    public static let summary = "The last image fades to gray and the next fades in from its gray (FFmpeg xfade fadegrays)."
    public static let family = TransitionFamily.mixes
    public static let source = "FFmpeg xfade fadegrays"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), s1 = Xfade.smoothstep(0.8, 1, p), s2 = Xfade.smoothstep(0.2, 1, p)
        // Each channel: (A s1 + gray(A) (1 - s1)) p + (gray(B) s2 + B (1 - s2)) (1 - p); alpha a plain fade.
        let ka = s1 * p, kga = (1 - s1) * p, kgb = s2 * (1 - p), kb = (1 - s2) * (1 - p)
        return { y, pages, out in
            let a = pages.a(y), b = pages.b(y)
            pages.map(y, into: out) { x in
                let pa = a[x], pb = b[x]
                let ga = Float(((pa & 255) + (pa >> 8 & 255) + (pa >> 16 & 255)) / 3)
                let gb = Float(((pb & 255) + (pb >> 8 & 255) + (pb >> 16 & 255)) / 3)
                let grays = ga * kga + gb * kgb
                @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
                    let v = Float(pa >> shift & 255) * ka + grays + Float(pb >> shift & 255) * kb
                    return UInt32(min(max(v, 0), 255) + 0.5) << shift
                }
                let alpha = Float(pa >> 24) * p + Float(pb >> 24) * (1 - p)
                return channel(0) | channel(8) | channel(16) | UInt32(min(max(alpha, 0), 255) + 0.5) << 24
            }
        }
    }
}
