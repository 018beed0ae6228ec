import Foundation

/// Glitch: a digital glitch over the cut. Its strength rises and falls as sin(π p); the frame
/// shows the outgoing page before the middle and the incoming one after, each cut into
/// `bands` bands of seeded heights shifted sideways by seeded amounts up to `shift` of the
/// width times the strength, and its red and blue taken `split` of the width either side of
/// its green (a chromatic split). The bands change `rate` times over the transition; the
/// same `seed`, the same glitch. Alpha is the green sample's, red and blue held under it.
public struct Glitch: PixelTransition {
    public static let name = "glitch"
    public static let summary = "A digital glitch: a chromatic split and bands shifted sideways, seeded, the pages switching at its height."
    public static let family = TransitionFamily.displacements
    public static let source = "A digital glitch: RGB split and displaced bands, as editors' glitch presets look"
    public static let bands = Parameter.integer("bands", default: 12, in: 1...200, "How many bands the frame is cut into.")
    public static let shift = Parameter.number("shift", default: 0.08, in: 0...0.5, "How far a band moves sideways at most, as a share of the width.")
    public static let split = Parameter.number("split", default: 0.015, in: 0...0.1, "How far red and blue part from green, as a share of the width.")
    public static let rate = Parameter.integer("rate", default: 8, in: 1...120, "How many times over the transition the bands change.")
    public static let seed = Parameter.integer("seed", default: 1, in: 0...Int(Int32.max), "Which glitch: the same seed, the same bands.")
    public static let parameters = [bands.erased, shift.erased, split.erased, rate.erased, seed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The bands change by steps, not smoothly: a fixed count of samples when it is blurred.
    public func motionBound(bounds: Rect) -> MotionBound { .samples(8) }

    /// Each row's sideways shift in pixels at progress `p`, for `height` rows `width` wide.
    func shifts(_ p: Double, width: Int, height: Int) -> [Int] {
        let strength = sin(Double.pi * min(max(p, 0), 1)), seed = UInt64(values[Self.seed])
        let step = UInt64(min(max(p, 0), 1) * Double(values[Self.rate]))
        let count = values[Self.bands]
        // Band edges: seeded cuts of the height, sorted; each band's shift seeded too.
        let cuts = (1..<count).map { k in Int(Seeded.unit(step &* 1024 &+ UInt64(k), seed) * Double(height)) }.sorted()
        let edges = [0] + cuts + [height]
        var rows = [Int](repeating: 0, count: height)
        for k in 0..<count {
            let amount = 2 * Seeded.unit(step &* 1024 &+ 512 &+ UInt64(k), seed) - 1
            let dx = Int((amount * values[Self.shift] * strength * Double(width)).rounded())
            for y in edges[k]..<edges[k + 1] { rows[y] = dx }
        }
        return rows
    }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let shifts = shifts(progress, width: width, height: height)
        let split = Int((values[Self.split] * sin(Double.pi * min(max(progress, 0), 1)) * Double(width)).rounded())
        let incoming = progress >= 0.5
        return { y, pages, out in
            let row = incoming ? pages.b(y) : pages.a(y), dx = shifts[y], last = width - 1
            pages.map(y, into: out) { x in
                let g = row[min(max(x - dx, 0), last)]
                guard split != 0 else { return g }
                let r = row[min(max(x - dx + split, 0), last)], b = row[min(max(x - dx - split, 0), last)]
                let alpha = g >> 24
                return (g & 0xFF00_FF00) | min(r & 0xFF, alpha) | (min((b >> 16) & 0xFF, alpha) << 16)
            }
        }
    }
}
