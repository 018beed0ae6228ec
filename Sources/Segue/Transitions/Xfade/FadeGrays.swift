import CSegueKernels

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
        let k = [ka, kga, kgb, kb, p, 1 - p]
        return { y, pages, out in segue_mix_grays(out, pages.a(y), pages.b(y), k, Int32(width)) }
    }
}
