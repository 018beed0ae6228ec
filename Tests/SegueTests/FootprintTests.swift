import CSegueKernels
import Foundation
import Testing
@testable import Segue

/// The footprint filter of pictures drawn smaller than they were prepared: each texel is a
/// unit square weighted by the area a tent as wide as the pixel covers of it.
@Suite("Pictures drawn smaller: the footprint filter")
struct FootprintTests {
    /// The tent's area over texel t for a pixel centered at texel position u, `radius` wide on
    /// either side, as a fraction of the whole (the weights' definition, by numeric integration).
    static func weight(texel t: Double, center u: Double, radius: Double) -> Double {
        let steps = 2000
        var area = 0.0
        for i in 0..<steps {
            let s = t - 0.5 + (Double(i) + 0.5) / Double(steps)
            area += max(0, radius - abs(s - u)) / Double(steps)
        }
        return area / (radius * radius)
    }

    @Test("weights are the tent's areas over each texel in 256ths, sum to 256 and fold onto the picture's edges",
          arguments: [1.0, 1.2, 1.73, 2.5, 6.1])
    func weights(scale: Double) {
        let taps = Int(segue_tent_taps(scale))
        #expect(taps == (Int((2 * max(1, scale) + 1).rounded(.up)) + 3) / 4 * 4)
        let count = 40, lo = 3, hi = 3 + Int(Double(count) * scale) - 2
        var first = [Int32](repeating: 0, count: count)
        var weights = [UInt16](repeating: 0, count: count * taps)
        segue_tent_weights(scale, 0.37, 0, Int32(count), Int32(lo), Int32(hi), Int32(taps), &first, &weights)
        for x in 0..<count {
            let w = weights[x * taps..<(x + 1) * taps].map(Int.init)
            #expect(w.reduce(0, +) == 256, "pixel \(x): \(w)")
            let last = w.lastIndex { $0 != 0 }!
            #expect(Int(first[x]) >= lo && Int(first[x]) + last < hi, "pixel \(x) reads from \(first[x]): \(w)")
            // Each texel's weight: the areas of the texels it stands for (itself, or at an edge
            // those beyond it too).
            let u = (Double(x) + 0.5) * scale + 0.37 - 0.5
            for t in 0..<taps {
                let texel = Int(first[x]) + t
                let beyond = texel == lo ? -20...lo : texel == hi - 1 ? (hi - 1)...(hi + 20) : texel...texel
                let want = texel >= hi ? 0 : beyond.reduce(0.0) { $0 + FootprintTests.weight(texel: Double($1), center: u, radius: max(1, scale)) }
                #expect(abs(Double(w[t]) - want * 256) <= 1, "pixel \(x), texel \(texel): \(w[t]) for \(want * 256)")
            }
        }
    }

    /// Draws a picture of `texels` (width x height, packed) scaled by `scale` texels per pixel
    /// from texel `offset`, `columns` x `rows` pixels, through `FootprintSource`.
    static func draw(_ texels: [UInt32], width: Int, height: Int, scale: Double, offset: Double,
                     columns: Int, rows: Int, opaque: Bool = true, k: UInt32 = 256, under: UInt32 = 0) -> [UInt32] {
        let across = FootprintTaps(count: columns, scale: scale, offset: offset, low: 0, high: width)
        let down = FootprintTaps(count: rows, scale: scale, offset: offset, low: 0, high: height, pairs: false)
        var out = [UInt32](repeating: under, count: columns * rows)
        texels.withUnsafeBufferPointer { t in
            across.withTable { columnsTable in
                down.withTable { rowsTable in
                    let source = FootprintSource(texels: t.baseAddress!, stride: width, columns: columnsTable, rows: rowsTable, opaque: opaque)
                    out.withUnsafeMutableBufferPointer { o in
                        for y in 0..<rows { source.fill(o.baseAddress! + y * columns, y: y, x0: 0, x1: columns, k: k) }
                    }
                }
            }
        }
        return out
    }

    @Test("a flat picture stays exactly flat at any scale and offset, its edges included")
    func flat() {
        let texels = [UInt32](repeating: 0xFF40_80C0, count: 97 * 61)
        for scale in [1.01, 1.2, 1.5, 3.3] {
            for offset in [0.0, 0.31, 0.5, -0.7] {
                let out = FootprintTests.draw(texels, width: 97, height: 61, scale: scale, offset: offset,
                                              columns: Int(97 / scale), rows: Int(61 / scale))
                #expect(out.allSatisfy { $0 == 0xFF40_80C0 }, "scale \(scale), offset \(offset)")
            }
        }
    }

    @Test("a dot three texels wide keeps its brightness and moves exactly with the picture, wherever it falls between pixels")
    func dotMovesExactly() {
        let width = 64, height = 64
        for scale in [1.1, 1.37, 2.2] {
            var worst = 0.0, masses: [Double] = []
            for step in 0..<20 {
                let offset = Double(step) * 0.05 * scale
                var texels = [UInt32](repeating: 0xFF00_0000, count: width * height)
                for y in 30...32 { for x in 29...31 { texels[y * width + x] = 0xFFFF_FFFF } }
                let columns = Int(Double(width) / scale) - 4, rows = Int(Double(height) / scale) - 4
                let out = FootprintTests.draw(texels, width: width, height: height, scale: scale, offset: offset,
                                              columns: columns, rows: rows)
                var sx = 0.0, sy = 0.0, mass = 0.0
                for y in 0..<rows {
                    for x in 0..<columns {
                        let v = Double(out[y * columns + x] & 0xFF)
                        sx += v * (Double(x) + 0.5); sy += v * (Double(y) + 0.5); mass += v
                    }
                }
                // The dot's center, texel (30, 31)'s center (30.5 in the picture's coordinates) is at canvas x with
                // x scale + offset = 30.5.
                worst = max(worst, abs(sx / mass - (30.5 - offset) / scale), abs(sy / mass - (31.5 - offset) / scale))
                masses.append(mass * scale * scale)
            }
            #expect(worst < 0.02, "scale \(scale): centroid off by \(worst) px")
            #expect(masses.max()! - masses.min()! < 0.02 * masses.max()!, "scale \(scale): brightness \(masses)")
        }
    }

    @Test("mixed at an opacity over what is beneath, opaque or not, as every other picture is")
    func mixing() {
        let width = 40, height = 30
        let texels = (0..<width * height).map { i -> UInt32 in
            let v = UInt32(i * 37 % 200)
            return 0x8000_0000 | v >> 1 | (v >> 2) << 8
        }
        let alone = FootprintTests.draw(texels, width: width, height: height, scale: 1.3, offset: 0.2, columns: 25, rows: 18, opaque: false)
        let under: UInt32 = 0xFF20_6090
        for k: UInt32 in [256, 100] {
            let drawn = FootprintTests.draw(texels, width: width, height: height, scale: 1.3, offset: 0.2, columns: 25, rows: 18,
                                            opaque: false, k: k, under: under)
            #expect(drawn == alone.map { blendPixel(k == 256 ? $0 : scalePixel($0, k), over: under) })
        }
        let opaque = texels.map { $0 | 0xFF00_0000 }
        let full = FootprintTests.draw(opaque, width: width, height: height, scale: 1.3, offset: 0.2, columns: 25, rows: 18)
        let mixed = FootprintTests.draw(opaque, width: width, height: height, scale: 1.3, offset: 0.2, columns: 25, rows: 18,
                                        k: 77, under: under)
        #expect(mixed == full.map { lerpPixel(under, $0, 77) })
    }
}
