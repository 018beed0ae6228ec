/// FFmpeg xfade's `zoomin`: the camera pushes into the outgoing page's center, which then
/// fades into the incoming one. Ported from vf_xfade.c (nearest texels, as it takes them).
public struct ZoomIn: PixelTransition {
    public static let name = "zoomin"
    public static let summary = "The camera zooms into the last image, which fades into the next (FFmpeg xfade zoomin)."
    public static let family = TransitionFamily.displacements
    public static let source = "FFmpeg xfade zoomin"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), zoom = Xfade.smoothstep(0.5, 1, p)
        // The outgoing page's texel each column and row shows, the view `zoom` of it about the center.
        func texels(_ count: Int) -> [Int] {
            let n = Float(count)
            return (0..<count).map { i in min(count - 1, max(0, Int(((0.5 + (Float(i) / n - 0.5) * zoom) * (n - 1)).rounded(.up)))) }
        }
        let columns = texels(width), rows = texels(height), k = UInt32(PagePictures.fixed(1 - Xfade.smoothstep(0, 0.5, p)))
        return { y, pages, out in
            let a = pages.a(rows[y]), b = pages.b(y)
            columns.withUnsafeBufferPointer { columns in
                pages.map(y, into: out) { x in PagePictures.lerp(a[columns[x]], b[x], k) }
            }
        }
    }
}
