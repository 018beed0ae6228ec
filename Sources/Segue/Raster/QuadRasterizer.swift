/// Where a span of canvas pixels reads its color from. Each kind of paint is its own type,
/// so the span loop is specialised for it: the choice is made once per quad, not per pixel.
protocol PixelSource {
    /// The premultiplied color at the center of canvas pixel (x, y).
    func color(x: Int, y: Int) -> UInt32
}

/// One color everywhere.
struct SolidSource: PixelSource {
    let pixel: UInt32
    @inline(__always) func color(x: Int, y: Int) -> UInt32 { pixel }
}

/// An image placed at a whole-pixel offset without scaling: a straight copy of texels.
struct CopySource: PixelSource {
    let texels: UnsafePointer<UInt32>
    let stride: Int, dx: Int, dy: Int
    let x0: Int, y0: Int, x1: Int, y1: Int
    @inline(__always) func color(x: Int, y: Int) -> UInt32 {
        let sx = min(max(x + dx, x0), x1 - 1), sy = min(max(y + dy, y0), y1 - 1)
        return texels[sy * stride + sx]
    }
}

/// An image under any projective map, sampled bilinearly at the inverse-mapped point.
/// The division by w is what makes the sampling perspective-correct.
struct WarpSource: PixelSource {
    let texels: UnsafePointer<UInt32>
    let stride: Int
    let map: Homography
    /// The texel box, in 1/256 texel, that sampling stays inside.
    let lowX: Double, highX: Double, lowY: Double, highY: Double
    let x1: Int, y1: Int

    @inline(__always) func color(x: Int, y: Int) -> UInt32 {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let w = px * map.m13 + py * map.m23 + map.m33
        let s = (px * map.m11 + py * map.m21 + map.m31) / w
        let t = (px * map.m12 + py * map.m22 + map.m32) / w
        // Texel centers sit at half-integers; round to 1/256 of a texel, clamp to the box.
        let fx = Int(min(max((s - 0.5) * 256 + 0.5, lowX), highX))
        let fy = Int(min(max((t - 0.5) * 256 + 0.5, lowY), highY))
        let ix = fx >> 8, iy = fy >> 8
        let ix1 = min(ix + 1, x1 - 1), iy1 = min(iy + 1, y1 - 1)
        let row0 = texels + iy * stride, row1 = texels + iy1 * stride
        let wx = UInt32(fx & 255), wy = UInt32(fy & 255)
        return lerpPixel(lerpPixel(row0[ix], row0[ix1], wx), lerpPixel(row1[ix], row1[ix1], wx), wy)
    }
}

/// Another source seen through masks: its color scaled by the part of the pixel the masks let through.
struct MaskedSource<Inner: PixelSource>: PixelSource {
    let inner: Inner
    let clips: [Clip]
    @inline(__always) func color(x: Int, y: Int) -> UInt32 {
        var coverage = 1.0
        for clip in clips { coverage *= clip.coverage(x: x, y: y) }
        if coverage >= 1 { return inner.color(x: x, y: y) }
        let k = UInt32((coverage * 256).rounded())
        return k == 0 ? 0 : scalePixel(inner.color(x: x, y: y), k)
    }
}

/// A convex quad prepared for scan conversion: its four edges as lines
/// `d = nx * x + ny * y + c`, d being the signed distance in pixels, positive inside.
struct PreparedQuad {
    var nx: (Double, Double, Double, Double)
    var ny: (Double, Double, Double, Double)
    var c: (Double, Double, Double, Double)
    var rows: Range<Int>
    var opacity: Double

    /// Nil for a quad with no area (a page seen edge-on) or one that is not convex.
    init?(corners p: [Point], opacity: Double, canvasHeight: Int) {
        let area = signedArea(p)
        guard abs(area) > 1e-6 else { return nil }
        let sign: Double = area > 0 ? 1 : -1
        var nxs = [Double](), nys = [Double](), cs = [Double]()
        for i in 0..<4 {
            let a = p[i], b = p[(i + 1) % 4]
            let dx = b.x - a.x, dy = b.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            // A collapsed edge (a triangle) bounds nothing: a line that every pixel is far inside of.
            guard length > 1e-12 else { nxs.append(0); nys.append(0); cs.append(1e9); continue }
            let nx = -dy / length * sign, ny = dx / length * sign
            nxs.append(nx); nys.append(ny); cs.append(-(nx * a.x + ny * a.y))
        }
        // Every corner must be inside the lines of the edges it is not on: a convex quad.
        for i in 0..<4 {
            for e in 0..<4 where e != i && (e + 1) % 4 != i {
                if nxs[e] * p[i].x + nys[e] * p[i].y + cs[e] < -1e-6 { return nil }
            }
        }
        nx = (nxs[0], nxs[1], nxs[2], nxs[3])
        ny = (nys[0], nys[1], nys[2], nys[3])
        c = (cs[0], cs[1], cs[2], cs[3])
        let top = p.map(\.y).min()!, bottom = p.map(\.y).max()!
        guard top.isFinite, bottom.isFinite else { return nil }
        let first = max(0, Int(max(top, -1).rounded(.down)) - 1)
        let last = min(canvasHeight, Int(min(bottom, Double(canvasHeight) + 1).rounded(.up)) + 1)
        guard first < last else { return nil }
        rows = first..<last
        self.opacity = opacity
    }

    /// Draws the rows of `band` that the quad covers into `frame`, reading colors from `source`.
    /// Pixels fully inside take the source color; pixels on an edge take it in proportion to
    /// the part of the pixel the quad covers (anti-aliasing).
    @inline(__always)
    func draw<S: PixelSource>(_ source: S, into frame: UnsafeMutablePointer<UInt32>, width: Int, band: Range<Int>) {
        let fullK = UInt32((min(max(opacity, 0), 1) * 256).rounded())
        guard fullK > 0 else { return }
        let lo = max(band.lowerBound, rows.lowerBound), hi = min(band.upperBound, rows.upperBound)
        guard lo < hi else { return }
        let n = [nx.0, nx.1, nx.2, nx.3], m = [ny.0, ny.1, ny.2, ny.3], cc = [c.0, c.1, c.2, c.3]
        for y in lo..<hi {
            let yc = Double(y) + 0.5
            // Each edge's distance at this row is k + nx * x.
            let k = (m[0] * yc + cc[0], m[1] * yc + cc[1], m[2] * yc + cc[2], m[3] * yc + cc[3])
            let ks = [k.0, k.1, k.2, k.3]
            guard let outer = span(ks, n, threshold: -0.5, width: width) else { continue }
            let inner = span(ks, n, threshold: 0.5, width: width) ?? (outer.lowerBound..<outer.lowerBound)
            let innerLo = min(max(inner.lowerBound, outer.lowerBound), outer.upperBound)
            let innerHi = min(max(inner.upperBound, innerLo), outer.upperBound)
            let row = frame + y * width

            for x in outer.lowerBound..<innerLo {
                edgePixel(source, x: x, y: y, k: k, fullK: fullK, row: row)
            }
            if fullK == 256 {
                for x in innerLo..<innerHi { row[x] = blendPixel(source.color(x: x, y: y), over: row[x]) }
            } else {
                for x in innerLo..<innerHi { row[x] = blendPixel(scalePixel(source.color(x: x, y: y), fullK), over: row[x]) }
            }
            for x in innerHi..<outer.upperBound {
                edgePixel(source, x: x, y: y, k: k, fullK: fullK, row: row)
            }
        }
    }

    /// The pixels of a row whose centers are more than `threshold` inside every edge.
    @inline(__always)
    private func span(_ k: [Double], _ n: [Double], threshold: Double, width: Int) -> Range<Int>? {
        var low = -1.0, high = Double(width) + 1
        for e in 0..<4 {
            // Inside when n * x + k > threshold.
            let bound = (threshold - k[e]) / n[e]
            if n[e] > 1e-12 { low = max(low, bound) }
            else if n[e] < -1e-12 { high = min(high, bound) }
            else if k[e] <= threshold { return nil }
        }
        // Pixel x qualifies when low < x + 0.5 < high.
        let first = max(0, Int((low - 0.5).rounded(.down)) + 1)
        let end = min(width, Int((high - 0.5).rounded(.up)))
        return first < end ? first..<end : nil
    }

    /// An edge pixel: coverage is the product of the pixel's overlap with the strip between
    /// the top and bottom edges and with the strip between the left and right edges, which
    /// is exact for axis-aligned rectangles and goes to zero for a quad seen edge-on.
    @inline(__always)
    private func edgePixel<S: PixelSource>(_ source: S, x: Int, y: Int, k: (Double, Double, Double, Double),
                                           fullK: UInt32, row: UnsafeMutablePointer<UInt32>) {
        let xc = Double(x) + 0.5
        @inline(__always) func inside(_ n: Double, _ k: Double) -> Double { min(max(n * xc + k + 0.5, 0), 1) }
        let across = min(max(inside(nx.0, k.0) + inside(nx.2, k.2) - 1, 0), 1)
        let along = min(max(inside(nx.1, k.1) + inside(nx.3, k.3) - 1, 0), 1)
        let coverage = UInt32((across * along * Double(fullK)).rounded())
        guard coverage > 0 else { return }
        row[x] = blendPixel(scalePixel(source.color(x: x, y: y), coverage), over: row[x])
    }
}
