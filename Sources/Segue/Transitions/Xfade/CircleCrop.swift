import Foundation

/// FFmpeg xfade's `circlecrop`: the outgoing page closes into a circle on black, and the
/// incoming one opens out of it. Ported from vf_xfade.c; the circle's edge anti-aliased.
public struct CircleCrop: PixelTransition {
    public static let name = "circlecrop"
    public static let summary = "The last image closes into a circle on black, the next opens out of it (FFmpeg xfade circlecrop)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade circlecrop"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), cx = Float(width / 2), cy = Float(height / 2)
        let radius = powf(2 * abs(p - 0.5), 3) * hypotf(cx, cy), incoming = p < 0.5
        return { y, pages, out in
            let dy = Float(y) - cy, row = incoming ? pages.b(y) : pages.a(y)
            @inline(__always) func pixel(_ x: Int) -> UInt32 {
                let inside = min(max(radius - Xfade.length(Float(x) - cx, dy) + 0.5, 0), 1)
                return PagePictures.lerp(Xfade.black, row[x], UInt32(PagePictures.fixed(inside)))
            }
            // Only the pixels near the circle's edge are worked out; two pixels' margin either
            // side of it, those wholly inside are the page's and those outside black.
            let outer = radius + 2.5, inner = radius - 2.5
            guard dy * dy < outer * outer else { out.update(repeating: Xfade.black, count: width); return }
            let reach = (outer * outer - dy * dy).squareRoot(), core = inner > 0 && dy * dy < inner * inner ? (inner * inner - dy * dy).squareRoot() : -1
            let lo = max(0, Int(cx - reach)), hi = min(width, Int(cx + reach) + 1)
            out.update(repeating: Xfade.black, count: lo)
            (out + hi).update(repeating: Xfade.black, count: width - hi)
            let cLo = core < 0 ? hi : min(hi, max(lo, Int(cx - core) + 1)), cHi = core < 0 ? hi : max(cLo, min(hi, Int(cx + core)))
            for x in lo..<cLo { out[x] = pixel(x) }
            (out + cLo).update(from: row + cLo, count: cHi - cLo)
            for x in cHi..<hi { out[x] = pixel(x) }
        }
    }
}
