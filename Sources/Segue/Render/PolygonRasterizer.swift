import CSegueKernels
/// A convex polygon prepared for scan conversion: up to eight edges as lines
/// `d = nx * x + ny * y + c`, d being the signed distance in pixels, positive inside. Lane e
/// holds the edge from corner e to corner e + 1; lanes with no edge (a collapsed edge, or
/// past the last corner) hold a line that every pixel is far inside of.
struct PreparedPolygon: Sendable {
    var nx = SIMD8<Double>(repeating: 0)
    var ny = SIMD8<Double>(repeating: 0)
    var c = SIMD8<Double>(repeating: PreparedPolygon.farInside)
    /// Half the extent of a pixel square across each edge: a pixel whose center is more than
    /// this inside (outside) the edge lies wholly inside (outside) it.
    var reach = SIMD8<Double>(repeating: 0)
    /// The spans of a row, as lines in y: `Span.low` and `.high` bound the pixel centers of
    /// the pixels that touch the polygon (outer) and of those wholly inside it (inner).
    private var outer = Span(), inner = Span()
    var rows: Range<Int>
    var opacity: Double

    static let farInside = 1e18
    static let maxCorners = 8

    /// Nil for a polygon with no area (a page seen edge-on), one that is not convex, or one
    /// with more than eight corners.
    init?(corners p: [Point], opacity: Double, canvasHeight: Int) {
        guard (3...PreparedPolygon.maxCorners).contains(p.count), p.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let area = signedArea(p)
        let size = p.map { max(abs($0.x), abs($0.y)) }.max()!
        guard abs(area) > 1e-6 else { return nil }
        let sign: Double = area > 0 ? 1 : -1
        rows = 0..<0
        self.opacity = opacity
        var edges: [Int] = []
        for i in p.indices {
            let a = p[i], b = p[(i + 1) % p.count]
            let dx = b.x - a.x, dy = b.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 1e-9 * max(1, size) else { continue }
            nx[i] = -dy / length * sign
            ny[i] = dx / length * sign
            c[i] = -(nx[i] * a.x + ny[i] * a.y)
            reach[i] = (abs(nx[i]) + abs(ny[i])) / 2
            edges.append(i)
        }
        guard edges.count >= 3 else { return nil }
        // Every corner must be inside the line of every edge: a convex polygon.
        let tolerance = 1e-6 + 1e-9 * size
        for q in p {
            for e in edges where nx[e] * q.x + ny[e] * q.y + c[e] < -tolerance { return nil }
        }
        prepareSpans()
        let top = p.map(\.y).min()!, bottom = p.map(\.y).max()!
        let first = max(0, Int(max(top, -1).rounded(.down)) - 1)
        let last = min(canvasHeight, Int(min(bottom, Double(canvasHeight) + 1).rounded(.up)) + 1)
        guard first < last else { return nil }
        rows = first..<last
    }

    /// Moves edge `e` outward by `pixels`, so the polygon reaches that far past it: what an
    /// edge shared with an opaque neighbour drawn later does, so that no background shows
    /// between the two (their edge pixels would otherwise each let a part of it through).
    mutating func extend(edge e: Int, by pixels: Double, canvasHeight: Int) {
        c[e] += pixels
        prepareSpans()
        let grow = Int(pixels.rounded(.up)) + 1
        rows = max(0, rows.lowerBound - grow)..<min(canvasHeight, rows.upperBound + grow)
    }

    /// Draws the rows of `band` that the polygon covers into `frame`, reading colors from
    /// `source`. Pixels wholly inside take the source color; pixels on the outline take it in
    /// proportion to the area of the pixel square the polygon covers (a box filter).
    @inline(__always)
    func draw<S: PixelSource>(_ source: S, into frame: UnsafeMutablePointer<UInt32>, width: Int, band: Range<Int>) {
        let fullK = UInt32((min(max(opacity, 0), 1) * 256).rounded())
        guard fullK > 0 else { return }
        let lo = max(band.lowerBound, rows.lowerBound), hi = min(band.upperBound, rows.upperBound)
        guard lo < hi else { return }
        if let box = rectangle {
            drawRectangle(box, source, into: frame, width: width, rows: lo..<hi, fullK: fullK)
            return
        }
        for y in lo..<hi {
            guard let (outer, inner) = spans(row: y, width: width) else { continue }
            // Each edge's distance from the centers along this row is k + nx * (x + 0.5).
            let k = ny * (Double(y) + 0.5) + c
            let row = frame + y * width
            edgePixels(source, outer.lowerBound..<inner.lowerBound, y: y, k: k, fullK: fullK, row: row)
            source.fill(row, y: y, x0: inner.lowerBound, x1: inner.upperBound, k: fullK)
            edgePixels(source, inner.upperBound..<outer.upperBound, y: y, k: k, fullK: fullK, row: row)
        }
    }

    /// The pixels of row `y` that the polygon touches (outer) and, within them, those wholly
    /// inside it (inner), for a polygon that is not an upright rectangle.
    @inline(__always)
    private func spans(row y: Int, width: Int) -> (outer: Range<Int>, inner: Range<Int>)? {
        let yc = Double(y) + 0.5
        guard let outer = self.outer.pixels(yc, inclusive: false, width: width) else { return nil }
        let inner = self.inner.pixels(yc, inclusive: true, width: width) ?? (outer.lowerBound..<outer.lowerBound)
        let innerLo = min(max(inner.lowerBound, outer.lowerBound), outer.upperBound)
        return (outer, innerLo..<min(max(inner.upperBound, innerLo), outer.upperBound))
    }

    /// Columns that `draw` paints from the source alone, at full coverage, on every row of
    /// `band` (a source that is opaque at full opacity replaces whatever is beneath them), if
    /// any. Exact for an upright rectangle; otherwise from the band's first and last rows:
    /// the pixel centers wholly inside a convex polygon form a convex set, so a column inside
    /// on both rows is inside on every row between. One column is given up at either end so
    /// that rounding in the rows between cannot matter.
    func innerColumns(band: Range<Int>, width: Int) -> Range<Int>? {
        guard !band.isEmpty, rows.lowerBound <= band.lowerBound, band.upperBound <= rows.upperBound else { return nil }
        if let box = rectangle {
            // drawRectangle's rows wholly inside, and its columns wholly inside.
            guard box.top <= Double(band.lowerBound), box.bottom >= Double(band.upperBound) else { return nil }
            let columns = PreparedPolygon.columns(box, width: width)
            return columns.inner.isEmpty ? nil : columns.inner
        }
        guard let first = spans(row: band.lowerBound, width: width)?.inner,
              let last = spans(row: band.upperBound - 1, width: width)?.inner else { return nil }
        let lo = max(first.lowerBound, last.lowerBound) + 1, hi = min(first.upperBound, last.upperBound) - 1
        return lo < hi ? lo..<hi : nil
    }

    /// Whether every pixel of `rows` (all `width` columns) lies wholly inside the polygon.
    func covers(rows band: Range<Int>, width: Int) -> Bool {
        guard rows.lowerBound <= band.lowerBound, band.upperBound <= rows.upperBound else { return false }
        if let box = rectangle {
            return box.left <= 0 && box.right >= Double(width) && box.top <= Double(band.lowerBound) && box.bottom >= Double(band.upperBound)
        }
        return band.allSatisfy { inner.pixels(Double($0) + 0.5, inclusive: true, width: width) == 0..<width }
    }

    /// An upright rectangle's sides (slides, fades and every flat layer): its spans are the
    /// same on every row and a pixel's coverage is the product of its overlaps across and
    /// down (the exact area), so rows need no per-edge work.
    private(set) var rectangle: (left: Double, right: Double, top: Double, bottom: Double)?

    private static func rectangle(nx: SIMD8<Double>, ny: SIMD8<Double>, c: SIMD8<Double>) -> (left: Double, right: Double, top: Double, bottom: Double)? {
        var left = -Double.infinity, right = Double.infinity, top = -Double.infinity, bottom = Double.infinity
        for e in 0..<8 where c[e] < PreparedPolygon.farInside {
            // Inside where nx * x + ny * y + c >= 0, with (nx, ny) one of the four unit axes.
            if ny[e] == 0 && nx[e] == 1 { left = max(left, -c[e]) } else if ny[e] == 0 && nx[e] == -1 { right = min(right, c[e]) }
            else if nx[e] == 0 && ny[e] == 1 { top = max(top, -c[e]) } else if nx[e] == 0 && ny[e] == -1 { bottom = min(bottom, c[e]) }
            else { return nil }
        }
        guard left.isFinite, right.isFinite, top.isFinite, bottom.isFinite, left < right, top < bottom else { return nil }
        return (left, right, top, bottom)
    }

    /// An upright rectangle's columns that it touches, and within them those wholly inside it.
    private static func columns(_ box: (left: Double, right: Double, top: Double, bottom: Double), width: Int) -> (touched: Range<Int>, inner: Range<Int>) {
        let first = max(0, Int(box.left.rounded(.down))), end = max(min(width, Int(box.right.rounded(.up))), first)
        let innerLo = min(max(Int(box.left.rounded(.up)), first), end), innerHi = max(min(Int(box.right.rounded(.down)), end), innerLo)
        return (first..<end, innerLo..<innerHi)
    }

    @inline(__always)
    private func drawRectangle<S: PixelSource>(_ box: (left: Double, right: Double, top: Double, bottom: Double), _ source: S,
                                               into frame: UnsafeMutablePointer<UInt32>, width: Int, rows: Range<Int>, fullK: UInt32) {
        @inline(__always) func overlap(_ i: Int, _ a: Double, _ b: Double) -> Double { min(max(min(Double(i) + 1, b) - max(Double(i), a), 0), 1) }
        let (touched, inner) = PreparedPolygon.columns(box, width: width)
        guard !touched.isEmpty else { return }
        let first = touched.lowerBound, end = touched.upperBound, innerLo = inner.lowerBound, innerHi = inner.upperBound
        for y in rows {
            let down = overlap(y, box.top, box.bottom)
            guard down > 0 else { continue }
            let row = frame + y * width
            if down >= 1 {
                for x in first..<innerLo { draw(source, x: x, y: y, coverage: overlap(x, box.left, box.right), fullK: fullK, row: row) }
                source.fill(row, y: y, x0: innerLo, x1: innerHi, k: fullK)
                for x in innerHi..<end { draw(source, x: x, y: y, coverage: overlap(x, box.left, box.right), fullK: fullK, row: row) }
            } else {
                for x in first..<end { draw(source, x: x, y: y, coverage: overlap(x, box.left, box.right) * down, fullK: fullK, row: row) }
            }
        }
    }

    /// Where along a row the pixel centers lie more than a threshold inside every edge: each
    /// edge that rises or falls across the row bounds them from below or above at
    /// `a + b * y`; an edge along the row lets the whole row through or none of it.
    struct Span {
        var lowA = SIMD8<Double>(repeating: -.infinity), lowB = SIMD8<Double>(repeating: 0)
        var highA = SIMD8<Double>(repeating: .infinity), highB = SIMD8<Double>(repeating: 0)
        /// For edges along the row, distance past the threshold: `levelB * y + levelA`, which
        /// must be positive; other lanes are always positive.
        var levelA = SIMD8<Double>(repeating: 1), levelB = SIMD8<Double>(repeating: 0)

        init() {}

        init(nx: SIMD8<Double>, ny: SIMD8<Double>, c: SIMD8<Double>, threshold: SIMD8<Double>) {
            let rising = nx .> 1e-12, falling = nx .< -1e-12, level = .!(rising .| falling)
            // Inside when nx * x + ny * y + c > threshold: x > (threshold - c) / nx - (ny / nx) y where nx > 0.
            let a = (threshold - c) / nx, b = -ny / nx
            lowA = lowA.replacing(with: a, where: rising); lowB = lowB.replacing(with: b, where: rising)
            highA = highA.replacing(with: a, where: falling); highB = highB.replacing(with: b, where: falling)
            levelA = levelA.replacing(with: c - threshold, where: level); levelB = levelB.replacing(with: ny, where: level)
        }

        /// The pixels of row center `y` that qualify (with `inclusive`, those exactly at the
        /// threshold too).
        @inline(__always)
        func pixels(_ y: Double, inclusive: Bool, width: Int) -> Range<Int>? {
            let level = levelB * y + levelA
            if inclusive ? any(level .< 0) : any(level .<= 0) { return nil }
            let lows = lowB * y + lowA, highs = highB * y + highA
            // Pairwise halves: a few vector steps instead of a scalar walk over the lanes.
            let low4 = pointwiseMax(lows.lowHalf, lows.highHalf), high4 = pointwiseMin(highs.lowHalf, highs.highHalf)
            let low2 = pointwiseMax(low4.lowHalf, low4.highHalf), high2 = pointwiseMin(high4.lowHalf, high4.highHalf)
            let low = max(-1.0, max(low2.x, low2.y)), high = min(Double(width) + 1, min(high2.x, high2.y))
            // Pixel x qualifies when low < x + 0.5 < high (or <= for inclusive).
            let first = inclusive ? Int((low - 0.5).rounded(.up)) : Int((low - 0.5).rounded(.down)) + 1
            let end = inclusive ? Int((high - 0.5).rounded(.down)) + 1 : Int((high - 0.5).rounded(.up))
            let a = max(0, first), b = min(width, end)
            return a < b ? a..<b : nil
        }
    }

    private mutating func prepareSpans() {
        outer = Span(nx: nx, ny: ny, c: c, threshold: -reach)
        inner = Span(nx: nx, ny: ny, c: c, threshold: reach - 1e-9)
        rectangle = PreparedPolygon.rectangle(nx: nx, ny: ny, c: c)
    }

    /// A run of outline pixels of one row, each drawn with the part of its square inside the
    /// polygon. Distances move linearly along the row, so an edge whose line clears both ends
    /// of the run by a pixel's reach cuts none of it; when only one edge cuts the run (away
    /// from the corners, nearly always), its distance alone gives each pixel's coverage.
    @inline(__always)
    private func edgePixels<S: PixelSource>(_ source: S, _ run: Range<Int>, y: Int, k: SIMD8<Double>,
                                            fullK: UInt32, row: UnsafeMutablePointer<UInt32>) {
        guard !run.isEmpty else { return }
        let first = nx * (Double(run.lowerBound) + 0.5) + k, last = nx * (Double(run.upperBound - 1) + 0.5) + k
        let cutting = pointwiseMin(first, last) .< reach
        var count = 0, only = 0
        for e in 0..<8 where cutting[e] { count += 1; only = e }
        if count == 1 {
            let n = nx[only], ke = k[only]
            let edge = HalfPlane(abs(nx[only]), abs(ny[only]))
            for x in run {
                draw(source, x: x, y: y, coverage: edge.coverage(n * (Double(x) + 0.5) + ke), fullK: fullK, row: row)
            }
        } else {
            for x in run {
                let d = nx * (Double(x) + 0.5) + k
                draw(source, x: x, y: y, coverage: PreparedPolygon.coverage(distances: d, nx: nx, ny: ny, reach: reach), fullK: fullK, row: row)
            }
        }
    }

    @inline(__always)
    private func draw<S: PixelSource>(_ source: S, x: Int, y: Int, coverage: Double, fullK: UInt32, row: UnsafeMutablePointer<UInt32>) {
        let scaled = UInt32((coverage * Double(fullK)).rounded())
        guard scaled > 0 else { return }
        row[x] = blendPixel(scalePixel(source.color(x: x, y: y), scaled), over: row[x])
    }

    /// The area of the unit pixel square inside every edge, given the edges' distances `d`
    /// from its center: exact, so coverage ends where the polygon ends (no smear past a sharp
    /// corner) and two polygons that share an edge cover its pixels exactly once between them.
    @inline(__always)
    static func coverage(distances d: SIMD8<Double>, nx: SIMD8<Double>, ny: SIMD8<Double>, reach: SIMD8<Double>) -> Double {
        // Edges the square lies wholly inside do not cut it; one it lies wholly outside empties it.
        if any(d .<= -reach) { return 0 }
        let cutting = d .< reach
        var count = 0, only = 0
        for e in 0..<8 where cutting[e] { count += 1; only = e }
        if count == 0 { return 1 }
        if count == 1 { return HalfPlane(abs(nx[only]), abs(ny[only])).coverage(d[only]) }
        // Several edges cut the square (a corner of the polygon, or a sliver): cut it by each.
        var polygon = CutSquare()
        for e in 0..<8 where cutting[e] {
            polygon.cut(nx[e], ny[e], d[e])
            if polygon.count < 3 { return 0 }
        }
        return min(max(polygon.area, 0), 1)
    }
}

/// How much of a pixel square lies inside a line, by the line's distance from the square's
/// center: a trapezoid while the line crosses two opposite sides, a corner triangle (or all
/// but one) while it cuts off a corner. The constants depend on the line's direction only.
struct HalfPlane {
    let flat: Double, outer: Double, inverseA: Double, inverseTwoAB: Double

    /// A line whose unit normal is (±nx, ±ny).
    @inline(__always)
    init(_ nx: Double, _ ny: Double) {
        let a = max(nx, ny), b = min(nx, ny)
        flat = (a - b) / 2
        outer = (a + b) / 2
        inverseA = 1 / a
        inverseTwoAB = b > 0 ? 1 / (2 * a * b) : 0
    }

    @inline(__always)
    func coverage(_ d: Double) -> Double {
        if d <= -outer { return 0 }
        if d >= outer { return 1 }
        if abs(d) <= flat { return 0.5 + d * inverseA }
        // The line cuts off one corner: a right triangle with legs t / a and t / b.
        let t = outer - abs(d)
        let corner = t * t * inverseTwoAB
        return d < 0 ? corner : 1 - corner
    }
}

/// The unit pixel square, centered on the origin, cut by lines: at most one corner more
/// per line.
struct CutSquare {
    var xs = InlineArray<16, Double>(repeating: 0)
    var ys = InlineArray<16, Double>(repeating: 0)
    var count = 4

    init() {
        xs[0] = -0.5; ys[0] = -0.5
        xs[1] = 0.5; ys[1] = -0.5
        xs[2] = 0.5; ys[2] = 0.5
        xs[3] = -0.5; ys[3] = 0.5
    }

    /// Keeps the part where `nx * x + ny * y + d >= 0`.
    @inline(__always)
    mutating func cut(_ nx: Double, _ ny: Double, _ d: Double) {
        var outX = InlineArray<16, Double>(repeating: 0), outY = InlineArray<16, Double>(repeating: 0)
        var n = 0
        for i in 0..<count {
            let j = i + 1 == count ? 0 : i + 1
            let di = nx * xs[i] + ny * ys[i] + d, dj = nx * xs[j] + ny * ys[j] + d
            if di >= 0 { outX[n] = xs[i]; outY[n] = ys[i]; n += 1 }
            if (di >= 0) != (dj >= 0), n < 16 {
                let t = di / (di - dj)
                outX[n] = xs[i] + t * (xs[j] - xs[i]); outY[n] = ys[i] + t * (ys[j] - ys[i]); n += 1
            }
            if n >= 15 { break }
        }
        xs = outX; ys = outY; count = n
    }

    var area: Double {
        var sum = 0.0
        for i in 0..<count {
            let j = i + 1 == count ? 0 : i + 1
            sum += xs[i] * ys[j] - xs[j] * ys[i]
        }
        return abs(sum) / 2
    }
}
