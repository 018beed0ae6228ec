/// FFmpeg xfade's `hblur`: both pages blur sideways, more and more until halfway, while they
/// crossfade, then sharpen again. Ported from vf_xfade.c (a box over the next `size` pixels
/// of the row, fewer near its right end).
public struct HBlur: PixelTransition {
    public static let name = "hblur"
    public static let summary = "The images blur sideways as they crossfade, then sharpen (FFmpeg xfade hblur)."
    public static let family = TransitionFamily.displacements
    public static let source = "FFmpeg xfade hblur"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        let size = max(1, min(width, Int(1 + Float(width / 2) * (p <= 0.5 ? p * 2 : (1 - p) * 2))))
        let k = UInt32(PagePictures.fixed(1 - p))
        return { y, pages, out in
            let a = pages.a(y), b = pages.b(y)
            // Each channel's sum in its own 32-bit lane (R and B in one word, G and A in the
            // other), divided by a reciprocal in 2^-24ths: no division a pixel.
            @inline(__always) func rb(_ v: UInt32) -> UInt64 { UInt64(v & 255) | UInt64(v >> 16 & 255) << 32 }
            @inline(__always) func ga(_ v: UInt32) -> UInt64 { UInt64(v >> 8 & 255) | UInt64(v >> 24) << 32 }
            @inline(__always) func pixel(_ rb: UInt64, _ ga: UInt64, _ inverse: UInt64) -> UInt32 {
                @inline(__always) func lane(_ sum: UInt64, _ shift: UInt64) -> UInt32 {
                    UInt32(((sum >> shift & 0xFFFF_FFFF) * inverse + (1 << 23)) >> 24)
                }
                return lane(rb, 0) | lane(ga, 0) << 8 | lane(rb, 32) << 16 | lane(ga, 32) << 24
            }
            var aRB: UInt64 = 0, aGA: UInt64 = 0, bRB: UInt64 = 0, bGA: UInt64 = 0
            for x in 0..<size { aRB &+= rb(a[x]); aGA &+= ga(a[x]); bRB &+= rb(b[x]); bGA &+= ga(b[x]) }
            var count = UInt64(size), inverse = (1 << 24) / count
            for x in 0..<width {
                out[x] = PagePictures.lerp(pixel(aRB, aGA, inverse), pixel(bRB, bGA, inverse), k)
                if x + size < width {
                    aRB = aRB &+ rb(a[x + size]) &- rb(a[x]); aGA = aGA &+ ga(a[x + size]) &- ga(a[x])
                    bRB = bRB &+ rb(b[x + size]) &- rb(b[x]); bGA = bGA &+ ga(b[x + size]) &- ga(b[x])
                } else {
                    aRB &-= rb(a[x]); aGA &-= ga(a[x]); bRB &-= rb(b[x]); bGA &-= ga(b[x])
                    count -= 1
                    if count > 0 { inverse = (1 << 24) / count }
                }
            }
        }
    }
}
