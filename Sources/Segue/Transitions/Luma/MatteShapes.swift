import Foundation

/// The mattes Segue draws itself, at the canvas's size (no files shipped): each a level for
/// every pixel, lower where the incoming page shows first, from the pixel's centre in pixels
/// (so that circles stay round on any canvas). `Matte.levels` then stretches them over the
/// whole range.
public enum MatteShape: String, CaseIterable, Sendable {
    case clock, iris, diamond, bars, blinds, checkerboard, spiral, radial, blocks, heart, star

    /// One line: what it draws, and the parameters it reads.
    public var summary: String {
        switch self {
        case .clock: return "A hand sweeps clockwise from twelve o'clock."
        case .iris: return "A circle opens from the centre."
        case .diamond: return "A diamond opens from the centre."
        case .bars: return "count bars wipe across at once, every other one from the other side (axis: horizontal bars or vertical ones)."
        case .blinds: return "count slats open from their middles, as blinds (axis: horizontal or vertical)."
        case .checkerboard: return "Squares, count across: one colour of the board wipes in, then the other."
        case .spiral: return "A hand sweeps round and outward from the centre in turns turns."
        case .radial: return "count hands sweep at once, as a fan."
        case .blocks: return "Squares, count across, each appears at its own random time (seed)."
        case .heart: return "A heart opens from the centre."
        case .star: return "A five-pointed star opens from the centre."
        }
    }

    /// The level of each pixel of a `width` x `height` canvas, rows from the top.
    func levels(width: Int, height: Int, _ values: ParameterValues) -> [Float] {
        let w = Double(width), h = Double(height)
        let count = Double(values[Luma.count]), horizontal = values[Luma.axis] == .horizontal
        let outline = self == .heart ? MatteOutline.heart : self == .star ? MatteOutline.star : nil
        let radius = (w * w + h * h).squareRoot() / 2
        let cell = w / count
        let seed = UInt64(truncatingIfNeeded: values[Luma.seed])
        var out = [Float](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width {
                let px = Double(column) + 0.5, py = Double(row) + 0.5
                // From the centre, y up.
                let u = px - w / 2, v = h / 2 - py
                let level: Double
                switch self {
                case .clock: level = MatteShape.turn(u, v)
                case .iris: level = (u * u + v * v).squareRoot() / radius
                case .diamond: level = (abs(u) + abs(v)) / (w / 2 + h / 2)
                case .bars:
                    let (along, across) = horizontal ? (px / w, py / h) : (py / h, px / w)
                    let band = (across * count).rounded(.down)
                    level = Int(band) % 2 == 0 ? along : 1 - along
                case .blinds:
                    let across = horizontal ? py / h : px / w
                    let f = across * count - (across * count).rounded(.down)
                    level = abs(f - 0.5) * 2
                case .checkerboard:
                    let i = Int((px / cell).rounded(.down)), j = Int((py / cell).rounded(.down))
                    let within = px / cell - Double(i)
                    level = (Double((i + j) & 1) + within) / 2
                case .spiral:
                    let turns = values[Luma.turns], a = MatteShape.turn(u, v)
                    let r = (u * u + v * v).squareRoot() / radius
                    level = ((r * turns - a).rounded(.down) + a) / (turns + 1)
                case .radial: level = (MatteShape.turn(u, v) * count).truncatingRemainder(dividingBy: 1)
                case .blocks:
                    let i = UInt64((px / cell).rounded(.down)), j = UInt64((py / cell).rounded(.down))
                    level = Seeded.unit(i &* 0x9E37_79B9 &+ j &* 0x85EB_CA6B, seed)
                case .heart, .star:
                    let scale = min(w, h) / 2
                    level = outline!.level(u / scale, v / scale)
                }
                out[row * width + column] = Float(level)
            }
        }
        return out
    }

    /// The angle of (u, v) clockwise from straight up, in turns (0..<1).
    static func turn(_ u: Double, _ v: Double) -> Double {
        let a = atan2(u, v) / (2 * Double.pi)
        return a < 0 ? a + 1 : a
    }
}

/// A closed outline seen from a point inside it that sees all of it (a heart's, a star's):
/// the distance to it in each direction, so that a point's level is how far out it lies
/// relative to the outline, and the shape grows from that point as the level rises.
struct MatteOutline: Sendable {
    /// The outline's distance from the centre in each of `directions` directions (clockwise from up).
    let reach: [Double]
    let centre: (x: Double, y: Double)

    /// An outline through `points` (in order around the centre), seen from `centre`.
    init(points: [(x: Double, y: Double)], centre: (x: Double, y: Double), directions: Int = 4096) {
        self.centre = centre
        var reach = [Double](repeating: 0, count: directions)
        let n = points.count
        // Each direction's ray meets the outline on the edge between the two points it lies between.
        for d in 0..<directions {
            let angle = Double(d) / Double(directions) * 2 * Double.pi
            let dx = sin(angle), dy = cos(angle)
            var best = Double.infinity
            for i in 0..<n {
                let a = points[i], b = points[(i + 1) % n]
                let ax = a.x - centre.x, ay = a.y - centre.y, bx = b.x - centre.x, by = b.y - centre.y
                let ex = bx - ax, ey = by - ay
                let denominator = dx * ey - dy * ex
                if abs(denominator) < 1e-12 { continue }
                let t = (ax * ey - ay * ex) / denominator
                let s = (ax * dy - ay * dx) / denominator
                if t > 0, s >= 0, s <= 1 { best = min(best, t) }
            }
            reach[d] = best.isFinite ? best : 1
        }
        self.reach = reach
    }

    /// The level of the point (x, y) (y up): its distance from the centre over the outline's in
    /// its direction, linearly between neighbouring directions.
    func level(_ x: Double, _ y: Double) -> Double {
        let u = x - centre.x, v = y - centre.y
        let position = MatteShape.turn(u, v) * Double(reach.count)
        let i = Int(position) % reach.count, t = position - position.rounded(.down)
        let r = reach[i] * (1 - t) + reach[(i + 1) % reach.count] * t
        return (u * u + v * v).squareRoot() / r
    }

    /// The classic parametric heart (x = 16 sin³ t, y = 13 cos t − 5 cos 2t − 2 cos 3t − cos 4t),
    /// about a unit across, seen from the middle of its height.
    static let heart: MatteOutline = {
        let points = (0..<720).map { i -> (x: Double, y: Double) in
            let t = Double(i) / 720 * 2 * Double.pi
            let x = 16 * pow(sin(t), 3), y = 13 * cos(t) - 5 * cos(2 * t) - 2 * cos(3 * t) - cos(4 * t)
            return (x / 34, (y + 2.5) / 34)
        }
        return MatteOutline(points: points, centre: (0, 0))
    }()

    /// A five-pointed star, a point straight up, its inner corners at 0.382 of its points' reach.
    static let star: MatteOutline = {
        let points = (0..<10).map { i -> (x: Double, y: Double) in
            let angle = Double(i) / 10 * 2 * Double.pi, r = i % 2 == 0 ? 0.5 : 0.5 * 0.382
            return (r * sin(angle), r * cos(angle))
        }
        return MatteOutline(points: points, centre: (0, 0))
    }()
}
