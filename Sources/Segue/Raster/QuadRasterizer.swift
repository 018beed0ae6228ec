/// Where a span of canvas pixels reads its color from. Each kind of paint is its own type,
/// so the span loops are specialised for it: the choice is made once per quad, not per pixel.
protocol PixelSource {
    /// The premultiplied color at the center of canvas pixel (x, y).
    func color(x: Int, y: Int) -> UInt32
    /// Draws pixels x0..<x1 of row y, all fully inside the quad, source-over, scaled by k / 256.
    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1: Int, k: UInt32)
}

extension PixelSource {
    @inline(__always)
    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1: Int, k: UInt32) {
        if k == 256 {
            for x in x0..<x1 { row[x] = blendPixel(color(x: x, y: y), over: row[x]) }
        } else {
            for x in x0..<x1 { row[x] = blendPixel(scalePixel(color(x: x, y: y), k), over: row[x]) }
        }
    }
}

/// One color everywhere.
struct SolidSource: PixelSource {
    let pixel: UInt32
    @inline(__always) func color(x: Int, y: Int) -> UInt32 { pixel }

    @inline(__always)
    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1: Int, k: UInt32) {
        guard x0 < x1 else { return }
        let p = k == 256 ? pixel : scalePixel(pixel, k)
        if p >> 24 == 255 {
            (row + x0).update(repeating: p, count: x1 - x0)
        } else {
            for x in x0..<x1 { row[x] = blendPixel(p, over: row[x]) }
        }
    }
}

/// An image placed at a whole-pixel offset without scaling: a straight copy of texels.
struct CopySource: PixelSource {
    let texels: UnsafePointer<UInt32>
    let stride: Int, dx: Int, dy: Int
    let x0: Int, y0: Int, x1: Int, y1: Int
    let opaque: Bool

    @inline(__always) func color(x: Int, y: Int) -> UInt32 {
        let sx = min(max(x + dx, x0), x1 - 1), sy = min(max(y + dy, y0), y1 - 1)
        return texels[sy * stride + sx]
    }

    @inline(__always)
    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0 a: Int, x1 b: Int, k: UInt32) {
        // The part of the span that reads inside the image's box goes row to row; the ends
        // clamp to its edge, as `color` does.
        let sy = min(max(y + dy, y0), y1 - 1)
        let source = texels + sy * stride
        let inA = min(max(a, x0 - dx), b), inB = max(min(b, x1 - dx), inA)
        if opaque && k == 256 {
            for x in a..<inA { row[x] = source[x0] }
            (row + inA).update(from: source + inA + dx, count: inB - inA)
            for x in inB..<b { row[x] = source[x1 - 1] }
        } else if opaque {
            // An opaque image partly through: a straight mix with what is beneath.
            for x in a..<inA { row[x] = lerpPixel(row[x], source[x0], k) }
            for x in inA..<inB { row[x] = lerpPixel(row[x], source[x + dx], k) }
            for x in inB..<b { row[x] = lerpPixel(row[x], source[x1 - 1], k) }
        } else {
            for x in a..<b {
                let p = source[min(max(x + dx, x0), x1 - 1)]
                row[x] = blendPixel(k == 256 ? p : scalePixel(p, k), over: row[x])
            }
        }
    }
}

/// An image under any projective map, sampled bilinearly at the inverse-mapped point.
/// The division by w is what makes the sampling perspective-correct.
struct WarpSource: PixelSource {
    let texels: UnsafePointer<UInt32>
    let stride: Int
    let map: Homography
    /// The texel box, in 1/256 texel (texel centers at whole numbers), that sampling stays inside.
    let lowX: Int, highX: Int, lowY: Int, highY: Int
    let opaque: Bool

    /// Pixels between exact perspective divisions in a span; in between, the texel position
    /// moves linearly, which is off by far less than 1/256 texel over so few pixels.
    static let segment = 16

    /// The bilinear sample at (u, v), in 1/65536 texel with texel centers at whole numbers,
    /// rounded to 1/256 texel and clamped to the box.
    @inline(__always) func sample(_ u: Int, _ v: Int) -> UInt32 {
        let fx = min(max((u &+ 128) >> 8, lowX), highX)
        let fy = min(max((v &+ 128) >> 8, lowY), highY)
        let ix = fx >> 8, iy = fy >> 8
        let row0 = texels + iy &* stride
        let row1 = fy < highY ? row0 + stride : row0
        let ix1 = fx < highX ? ix &+ 1 : ix
        return WarpSource.bilinear(row0[ix], row0[ix1], row1[ix], row1[ix1], fx & 255, fy & 255)
    }

    /// The same, for a position known to lie inside the box with a texel to its right and below.
    @inline(__always) func sampleInside(_ u: Int, _ v: Int) -> UInt32 {
        let fx = (u &+ 128) >> 8, fy = (v &+ 128) >> 8
        let row0 = texels + (fy >> 8) &* stride + (fx >> 8)
        let row1 = row0 + stride
        return WarpSource.bilinear(row0[0], row0[1], row1[0], row1[1], fx & 255, fy & 255)
    }

    /// Four texels mixed by their overlap with the sample's pixel: weights in 256ths that sum
    /// to exactly 256, so the lanes of a packed pixel cannot overflow.
    @inline(__always)
    static func bilinear(_ p00: UInt32, _ p01: UInt32, _ p10: UInt32, _ p11: UInt32, _ fx: Int, _ fy: Int) -> UInt32 {
        let w11 = UInt32(truncatingIfNeeded: (fx &* fy &+ 128) >> 8)
        let w01 = UInt32(truncatingIfNeeded: fx) &- w11, w10 = UInt32(truncatingIfNeeded: fy) &- w11
        let w00 = 256 &- UInt32(truncatingIfNeeded: fx) &- UInt32(truncatingIfNeeded: fy) &+ w11
        let m: UInt32 = 0x00FF00FF
        let rb = ((p00 & m) &* w00 &+ (p01 & m) &* w01 &+ (p10 & m) &* w10 &+ (p11 & m) &* w11 &+ 0x00800080) >> 8
        let ag = ((p00 >> 8) & m) &* w00 &+ ((p01 >> 8) & m) &* w01 &+ ((p10 >> 8) & m) &* w10 &+ ((p11 >> 8) & m) &* w11 &+ 0x00800080
        return (rb & m) | (ag & 0xFF00FF00)
    }

    /// The texel position of pixel (x, y)'s center, in 1/65536 texel, texel centers at whole numbers.
    @inline(__always) func position(x: Int, y: Int) -> (Int, Int) { position(px: Double(x) + 0.5, py: Double(y) + 0.5) }

    /// The texel position of canvas point (px, py), in 1/65536 texel.
    @inline(__always) func position(px: Double, py: Double) -> (Int, Int) {
        let w = px * map.m13 + py * map.m23 + map.m33
        let r = 1 / max(w, 1e-12)
        @inline(__always) func fixed(_ s: Double) -> Int { Int(min(max((s - 0.5) * 65536, -1e15), 1e15)) }
        return (fixed((px * map.m11 + py * map.m21 + map.m31) * r), fixed((px * map.m12 + py * map.m22 + map.m32) * r))
    }

    @inline(__always) func color(x: Int, y: Int) -> UInt32 {
        let (u, v) = position(x: x, y: y)
        return sample(u, v)
    }

    @inline(__always)
    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1 end: Int, k: UInt32) {
        var x = x0
        var (u, v) = position(x: x, y: y)
        while x < end {
            let next = min(x + WarpSource.segment, end)
            let (u1, v1) = position(x: next, y: y)
            let n = next - x
            let du = (u1 - u) / n, dv = (v1 - v) / n
            // The segment moves in a straight line: when both its ends sample inside the box
            // (a texel to the right and below included), no pixel of it needs clamping.
            let uEnd = u &+ du &* (n - 1), vEnd = v &+ dv &* (n - 1)
            let inside = min(u, uEnd) >= lowX << 8 && max(u, uEnd) &+ 128 < highX << 8
                && min(v, vEnd) >= lowY << 8 && max(v, vEnd) &+ 128 < highY << 8
            if opaque && k == 256 {
                if inside {
                    for i in x..<next {
                        row[i] = sampleInside(u, v)
                        u &+= du; v &+= dv
                    }
                } else {
                    for i in x..<next {
                        row[i] = sample(u, v)
                        u &+= du; v &+= dv
                    }
                }
            } else if opaque {
                for i in x..<next {
                    row[i] = lerpPixel(row[i], sample(u, v), k)
                    u &+= du; v &+= dv
                }
            } else {
                for i in x..<next {
                    let p = sample(u, v)
                    row[i] = blendPixel(k == 256 ? p : scalePixel(p, k), over: row[i])
                    u &+= du; v &+= dv
                }
            }
            x = next
            (u, v) = (u1, v1)
        }
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
        for y in lo..<hi {
            let yc = Double(y) + 0.5
            // Each edge's distance along this row is k + nx * x.
            let k = (ny.0 * yc + c.0, ny.1 * yc + c.1, ny.2 * yc + c.2, ny.3 * yc + c.3)
            guard let outer = span(k, threshold: -0.5, width: width) else { continue }
            let inner = span(k, threshold: 0.5, width: width) ?? (outer.lowerBound..<outer.lowerBound)
            let innerLo = min(max(inner.lowerBound, outer.lowerBound), outer.upperBound)
            let innerHi = min(max(inner.upperBound, innerLo), outer.upperBound)
            let row = frame + y * width

            for x in outer.lowerBound..<innerLo {
                edgePixel(source, x: x, y: y, k: k, fullK: fullK, row: row)
            }
            source.fill(row, y: y, x0: innerLo, x1: innerHi, k: fullK)
            for x in innerHi..<outer.upperBound {
                edgePixel(source, x: x, y: y, k: k, fullK: fullK, row: row)
            }
        }
    }

    /// The pixels of a row whose centers are more than `threshold` inside every edge.
    @inline(__always)
    private func span(_ k: (Double, Double, Double, Double), threshold: Double, width: Int) -> Range<Int>? {
        var low = -1.0, high = Double(width) + 1
        // Inside edge e when nx * x + k > threshold.
        @inline(__always) func limit(_ n: Double, _ k: Double) -> Bool {
            let bound = (threshold - k) / n
            if n > 1e-12 { low = max(low, bound) } else if n < -1e-12 { high = min(high, bound) } else if k <= threshold { return false }
            return true
        }
        guard limit(nx.0, k.0), limit(nx.1, k.1), limit(nx.2, k.2), limit(nx.3, k.3) else { return nil }
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
