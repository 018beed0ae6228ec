/// FFmpeg xfade's `rectcrop`: the outgoing page closes into a rectangle on black, and the
/// incoming one opens out of it. Ported from vf_xfade.c.
public struct RectCrop: PixelTransition {
    public static let name = "rectcrop"
    public static let summary = "The last image closes into a rectangle on black, the next opens out of it (FFmpeg xfade rectcrop)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade rectcrop"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        let zw = Int(abs(p - 0.5) * Float(width)), zh = Int(abs(p - 0.5) * Float(height)), incoming = p < 0.5
        return { y, pages, out in
            let row = incoming ? pages.b(y) : pages.a(y)
            guard abs(y - height / 2) < zh else { out.update(repeating: Xfade.black, count: width); return }
            pages.map(y, into: out) { x in abs(x - width / 2) < zw ? row[x] : Xfade.black }
        }
    }
}
