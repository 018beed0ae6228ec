/// FFmpeg xfade's `squeezeh` and `squeezev`: the outgoing page is squeezed toward its middle
/// line (its rows together for `horizontal`, its columns for `vertical`), the incoming one
/// appearing around it. Ported from vf_xfade.c.
public struct Squeeze: PixelTransition {
    public enum Axis: String, CaseIterable, Sendable { case horizontal, vertical }

    public static let name = "squeeze"
    public static let summary = "The last image is squeezed into its middle line, the next around it (FFmpeg xfade squeezeh, squeezev)."
    public static let family = TransitionFamily.displacements
    public static let source = "FFmpeg xfade squeezeh, squeezev"
    public static let axis = Parameter.choice("axis", default: Axis.horizontal,
                                              "horizontal squeezes the rows toward the middle row (squeezeh), vertical the columns (squeezev).")
    public static let parameters = [axis.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The outgoing page's line shown at each of `count` lines, or nil where the incoming page shows.
    static func lines(_ count: Int, p: Float) -> [Int?] {
        let n = Float(count)
        return (0..<count).map { i in
            let z = 0.5 + (Float(i) / n - 0.5) / p
            return z < 0 || z > 1 ? nil : Int((z * (n - 1)).rounded(.toNearestOrEven))
        }
    }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        switch values[Self.axis] {
        case .horizontal:
            let rows = Self.lines(height, p: p)
            return { y, pages, out in
                if let row = rows[y] { out.update(from: pages.a(row), count: width) } else { out.update(from: pages.b(y), count: width) }
            }
        case .vertical:
            let columns = Self.lines(width, p: p)
            return { y, pages, out in
                let a = pages.a(y), b = pages.b(y)
                pages.map(y, into: out) { x in columns[x].map { a[$0] } ?? b[x] }
            }
        }
    }
}
