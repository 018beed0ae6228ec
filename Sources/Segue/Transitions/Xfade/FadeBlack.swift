/// FFmpeg xfade's `fadeblack`: the outgoing page fades to black, then the incoming one fades in
/// from it, the two overlapping. Ported from vf_xfade.c.
public struct FadeBlack: PixelTransition {
    public static let name = "fadeblack"
    public static let summary = "The last image fades to black and the next fades in from it (FFmpeg xfade fadeblack)."
    public static let family = TransitionFamily.mixes
    public static let source = "FFmpeg xfade fadeblack"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        // mix(mix(A, black, s1), mix(black, B, s2), p) with xfade's mix(a, b, k) = a k + b (1 - k).
        let p = Xfade.progress(progress), s1 = Xfade.smoothstep(0.8, 1, p), s2 = Xfade.smoothstep(0.2, 1, p)
        let sum = LinearMix(a: s1 * p, b: (1 - s2) * (1 - p), color: .black, c: (1 - s1) * p + s2 * (1 - p))
        return { y, pages, out in pages.mix(y, into: out, sum: sum) }
    }
}
