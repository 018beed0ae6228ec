/// FFmpeg xfade's `distance`: pixels whose two colours lie close change first, the rest
/// later, as a crossfade gives way to the incoming page. Ported from vf_xfade.c.
public struct Distance: PixelTransition {
    public static let name = "distance"
    public static let summary = "Where the two images' colours lie close they change first (FFmpeg xfade distance)."
    public static let family = TransitionFamily.mixes
    public static let source = "FFmpeg xfade distance"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        // Where the colours' distance (all four channels, 0...2) is at most p the pixel is a
        // crossfade at p, elsewhere the incoming page.
        let p = Xfade.progress(progress), fade = 1 - p
        return { y, pages, out in
            let a = pages.a(y), b = pages.b(y)
            pages.mix(y, into: out) { x in
                let pa = a[x], pb = b[x]
                @inline(__always) func square(_ shift: UInt32) -> Float {
                    let d = Float(pa >> shift & 255) / 255 - Float(pb >> shift & 255) / 255
                    return d * d
                }
                return (square(0) + square(8) + square(16) + square(24)).squareRoot() <= p ? fade : 1
            }
        }
    }
}
