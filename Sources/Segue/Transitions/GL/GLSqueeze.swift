import CSegueKernels

/// gl-transitions' `squeeze` by gre (MIT): the picture is squeezed to a line across the middle,
/// its colours parting, over the next. Ported from squeeze.glsl.
///
/// Every sample lies on its pixel's own column, and all of a row's at the same height: a row
/// of the frame is three rows of the outgoing page, each a mix of two of its rows (red from
/// one, green and alpha from the next, blue from the third), or the incoming page's row.
public struct GLSqueeze: GLTransition {
    public static let file = "squeeze", authors = "gre"
    public static let summary = "The picture is squeezed flat across the middle, its colours parting (gl-transitions squeeze)."
    public static let family = TransitionFamily.displacements
    public static let colorSeparation = Parameter.number("colorSeparation", default: 0.04, in: -1...1, "How far red and blue part from green.")
    public static let parameters = [colorSeparation.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Float(progress), h = Float(height), shift = p * values.float(Self.colorSeparation)
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / h, t = 0.5 + (v - 0.5) / (1 - p)
            if t < 0 || t > 1 { out.update(from: pages.b(y), count: width); return }
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 3 * width) { rows in
                let red = rows.baseAddress!, green = red + width, blue = green + width
                pages.outgoingRow(at: t - shift, into: red)
                pages.outgoingRow(at: t, into: green)
                pages.outgoingRow(at: t + shift, into: blue)
                for x in 0..<width {
                    let r = red[x] & 0xFF, g = green[x] >> 8 & 0xFF, b = blue[x] >> 16 & 0xFF
                    // Alpha at least each colour, as a shader's output is kept premultiplied.
                    let a = max(green[x] >> 24, max(r, max(g, b)))
                    out[x] = r | g << 8 | b << 16 | a << 24
                }
            }
        }
    }
}

extension PagePictures {
    /// The outgoing page sampled along a whole row at GL's height `v` (0 at the bottom), each
    /// pixel at its own column's centre: two of its rows mixed, in 256ths, clamped at the edges.
    func outgoingRow(at v: Float, into out: UnsafeMutablePointer<UInt32>) {
        let y = GLSL.clamp((1 - v) * Float(height) - 0.5, 0, Float(height - 1))
        let fixed = Int(y * 256 + 0.5), j = fixed >> 8, below = min(j + 1, height - 1)
        segue_mix_constant(out, a(j), a(below), UInt32(fixed & 255), Int32(width))
    }
}
