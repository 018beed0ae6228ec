/// FFmpeg xfade's `fadewhite`: the outgoing page fades to white, then the incoming one fades in
/// from it, the two overlapping. Ported from vf_xfade.c.
public struct FadeWhite: PixelTransition {
    public static let name = "fadewhite"
    public static let summary = "The last image fades to white and the next fades in from it (FFmpeg xfade fadewhite)."
    public static let family = TransitionFamily.mixes
    public static let source = "FFmpeg xfade fadewhite"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        // mix(mix(A, white, s1), mix(white, B, s2), p) with xfade's mix(a, b, k) = a k + b (1 - k).
        let p = Xfade.progress(progress), s1 = Xfade.smoothstep(0.8, 1, p), s2 = Xfade.smoothstep(0.2, 1, p)
        let sum = LinearMix(a: s1 * p, b: (1 - s2) * (1 - p), color: .white, c: (1 - s1) * p + s2 * (1 - p))
        return { y, pages, out in pages.mix(y, into: out, sum: sum) }
    }
}
