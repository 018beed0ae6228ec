import CSegueKernels

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
            segue_fill(row + x0, x1 - x0, p)
        } else {
            segue_blend_color_row(row + x0, Int32(x1 - x0), p)
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
            segue_mix_row(row + inA, source + inA + dx, Int32(inB - inA), k)
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
    /// moves linearly, which is off by a small fraction of a texel over so few pixels (up to
    /// about a tenth at a cube face's steepest angle).
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
        return Texels.bilinear(row0[ix], row0[ix1], row1[ix], row1[ix1], fx & 255, fy & 255)
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
        guard x0 < end else { return }
        if opaque {
            // The common case, in C (vectorized where the CPU allows), with the same arithmetic.
            var m = SegueWarpMap(m11: map.m11, m12: map.m12, m13: map.m13, m21: map.m21, m22: map.m22,
                                 m23: map.m23, m31: map.m31, m32: map.m32, m33: map.m33)
            segue_warp_row(row, Int32(x0), Int32(end), Int32(y), &m, Int32(WarpSource.segment),
                           texels, stride, Int64(lowX), Int64(highX), Int64(lowY), Int64(highY), k)
            return
        }
        var x = x0
        while x < end {
            // A picture with transparent pixels: blended over what is beneath.
            var (u, v) = position(x: x, y: y)
            let next = min(x + WarpSource.segment, end)
            let (u1, v1) = position(x: next, y: y)
            let n = next - x
            let du = (u1 - u) / n, dv = (v1 - v) / n
            for i in x..<next {
                let p = sample(u, v)
                row[i] = blendPixel(k == 256 ? p : scalePixel(p, k), over: row[i])
                u &+= du; v &+= dv
            }
            x = next
        }
    }
}

/// An image drawn smaller than it was prepared, upright and without perspective (a zoom, a
/// Ken Burns hold, a page shrinking into its place): each pixel averages the texels under
/// it, each a unit square weighted by the area over it of a tent as wide as the pixel, so
/// fine detail moves with the picture instead of shimmering as bilinear samples skip texels
/// (`segue_footprint_row`).
struct FootprintSource: PixelSource {
    let texels: UnsafePointer<UInt32>
    let stride: Int
    let columns: FootprintTaps.Table
    /// The texel rows of each canvas row and their weights.
    let rows: FootprintTaps.Table
    let opaque: Bool

    /// The weights of canvas row y's texel rows, as `segue_footprint_row` takes them.
    @inline(__always)
    private func rowTaps(_ y: Int) -> (Int32, UnsafePointer<UInt16>, Int32) {
        (rows.first[y], rows.weights + y * rows.taps, Int32(rows.taps))
    }

    @inline(__always)
    private func filter(_ out: UnsafeMutablePointer<UInt32>, x: Int, count: Int, row: (Int32, UnsafePointer<UInt16>, Int32)) {
        segue_footprint_row(out, Int32(count), columns.first + x, columns.weights + x * columns.taps, columns.pairs! + x * columns.taps * 4,
                            Int32(columns.taps), Int32(columns.end), texels, stride, row.0, row.1, row.2)
    }

    func color(x: Int, y: Int) -> UInt32 {
        var pixel: UInt32 = 0
        filter(&pixel, x: x, count: 1, row: rowTaps(y))
        return pixel
    }

    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1: Int, k: UInt32) {
        guard x0 < x1 else { return }
        let taps = rowTaps(y)
        if opaque && k == 256 { return filter(row + x0, x: x0, count: x1 - x0, row: taps) }
        // Mixed with what is beneath, a stretch at a time.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 256) { buffer in
            let pixels = buffer.baseAddress!
            for start in Swift.stride(from: x0, to: x1, by: 256) {
                let n = min(256, x1 - start)
                filter(pixels, x: start, count: n, row: taps)
                if opaque { segue_mix_row(row + start, pixels, Int32(n), k) } else { segue_fade_row(row + start, pixels, Int32(n), k) }
            }
        }
    }
}

/// The tent weights of a picture's columns for every column of the canvas (or of its rows for
/// every row), made once for a drawn polygon (every band of the frame reads them).
final class FootprintTaps: Sendable {
    let first: [Int32]
    let weights: [UInt16]
    /// The weights as the vector kernel reads them (`segue_tent_pairs`); empty for rows.
    let pairs: [UInt8]
    let taps: Int
    /// The picture's part ends before this texel column (or row).
    let end: Int

    /// Canvas columns (or rows) 0..<count whose texel column is (x + 0.5) scale + offset - 0.5,
    /// within [low, high); `pairs` for columns, which the vector kernel reads as pairs.
    init(count: Int, scale: Double, offset: Double, low: Int, high: Int, pairs makePairs: Bool = true) {
        let taps = Int(segue_tent_taps(scale))
        var first = [Int32](repeating: 0, count: count)
        let weights = [UInt16](unsafeUninitializedCapacity: count * taps) { buffer, made in
            first.withUnsafeMutableBufferPointer {
                segue_tent_weights(scale, offset, 0, Int32(count), Int32(low), Int32(high), Int32(taps), $0.baseAddress!, buffer.baseAddress!)
            }
            made = count * taps
        }
        self.first = first
        self.weights = weights
        pairs = !makePairs ? [] : [UInt8](unsafeUninitializedCapacity: count * taps * 4) { buffer, made in
            weights.withUnsafeBufferPointer { segue_tent_pairs($0.baseAddress!, Int32(count), Int32(taps), buffer.baseAddress!) }
            made = count * taps * 4
        }
        self.taps = taps
        end = high
    }

    /// The tables' storage, for the time of one draw.
    struct Table {
        let first: UnsafePointer<Int32>
        let weights: UnsafePointer<UInt16>
        let pairs: UnsafePointer<UInt8>?
        let taps: Int
        let end: Int
    }

    func withTable<R>(_ body: (Table) -> R) -> R {
        first.withUnsafeBufferPointer { f in
            weights.withUnsafeBufferPointer { w in
                pairs.withUnsafeBufferPointer { p in
                    body(Table(first: f.baseAddress!, weights: w.baseAddress!, pairs: p.baseAddress, taps: taps, end: end))
                }
            }
        }
    }
}

/// Another source seen through masks: its color scaled by the part of the pixel the masks let through.
struct MaskedSource<Inner: PixelSource>: PixelSource {
    let inner: Inner
    let masks: [ShapeMask]
    @inline(__always) func color(x: Int, y: Int) -> UInt32 {
        var coverage = 1.0
        for shape in masks { coverage *= shape.coverage(x: x, y: y) }
        if coverage >= 1 { return inner.color(x: x, y: y) }
        let k = UInt32((coverage * 256).rounded())
        return k == 0 ? 0 : scalePixel(inner.color(x: x, y: y), k)
    }

    /// The columns of the row every mask covers wholly go through the inner source's own span
    /// loop, those some mask hides wholly are left as they are (masked, they would blend a
    /// transparent pixel); only those near an outline are masked pixel by pixel.
    @inline(__always)
    func fill(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1: Int, k: UInt32) {
        var first = x0, end = x1, lo = x0, hi = x1
        for shape in masks {
            guard let columns = shape.columns(row: y) else { return masked(row, y: y, x0: x0, x1: x1, k: k) }
            first = max(first, columns.touched.lowerBound)
            end = min(end, columns.touched.upperBound)
            lo = max(lo, columns.inside.lowerBound)
            hi = min(hi, columns.inside.upperBound)
        }
        guard first < end else { return }
        lo = min(max(lo, first), end)
        hi = max(min(hi, end), lo)
        masked(row, y: y, x0: first, x1: lo, k: k)
        inner.fill(row, y: y, x0: lo, x1: hi, k: k)
        masked(row, y: y, x0: hi, x1: end, k: k)
    }

    @inline(__always)
    private func masked(_ row: UnsafeMutablePointer<UInt32>, y: Int, x0: Int, x1: Int, k: UInt32) {
        guard x0 < x1 else { return }
        if k == 256 {
            for x in x0..<x1 { row[x] = blendPixel(color(x: x, y: y), over: row[x]) }
        } else {
            for x in x0..<x1 { row[x] = blendPixel(scalePixel(color(x: x, y: y), k), over: row[x]) }
        }
    }
}
