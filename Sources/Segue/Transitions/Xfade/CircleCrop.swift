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
            pages.map(y, into: out) { x in
                let inside = min(max(radius - Xfade.length(Float(x) - cx, dy) + 0.5, 0), 1)
                return PagePictures.lerp(Xfade.black, row[x], UInt32(PagePictures.fixed(inside)))
            }
        }
    }
}
