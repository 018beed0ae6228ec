/// FFmpeg xfade's `pixelize`: the picture breaks into ever larger squares while it crossfades,
/// then they shrink back over the incoming page. Ported from vf_xfade.c.
public struct Pixelize: PixelTransition {
    public static let name = "pixelize"
    public static let summary = "The picture breaks into growing squares, crossfades, and comes back (FFmpeg xfade pixelize)."
    public static let family = TransitionFamily.displacements
    public static let source = "FFmpeg xfade pixelize"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        let d = min(p, 1 - p), dist = (d * 50).rounded(.up) / 50
        let square = 2 * dist * Float(min(width, height)) / 20
        // The pixel each column and row takes its colour from: its square's center.
        func centers(_ count: Int) -> [Int] {
            (0..<count).map { i in dist > 0 ? Int(min(((Float(i) / square).rounded(.down) + 0.5) * square, Float(count - 1))) : i }
        }
        let columns = centers(width), rows = centers(height), k = UInt32(PagePictures.fixed(1 - p))
        return { y, pages, out in
            let a = pages.a(rows[y]), b = pages.b(rows[y])
            columns.withUnsafeBufferPointer { columns in
                pages.map(y, into: out) { x in PagePictures.lerp(a[columns[x]], b[columns[x]], k) }
            }
        }
    }
}
