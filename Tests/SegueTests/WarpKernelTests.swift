import CSegueKernels
import Foundation
import Testing
@testable import Segue

/// The warp kernel (AVX-512 or AVX2 where the CPU has them) against the sampler written out
/// pixel by pixel: sixteen-pixel segments between exact positions, each sample bilinear and
/// clamped to the box. Whatever way the kernel reads a run's texels (whole rows and permutes
/// where they lie within two rows, gathers elsewhere), the pixels must be these.
@Suite("The warp kernel")
struct WarpKernelTests {
    /// A picture of `width` x `height` opaque texels, each different, rows `stride` apart.
    static func texture(width: Int, height: Int, stride: Int) -> [UInt32] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<stride * height).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 0xFF00_0000 | UInt32(truncatingIfNeeded: state >> 40)
        }
    }

    /// Canvas to texel maps: a zoom, a pan by a fraction, cube faces turned about the vertical
    /// axis (texel rows cross a canvas row slowly), turned in the plane (quickly), squeezed
    /// (wide runs), seen nearly edge-on, and mirrored (positions moving left and up).
    static let maps: [(String, Homography)] = {
        var maps: [(String, Homography)] = [
            ("zoom in", Homography(m11: 0.37, m12: 0, m13: 0, m21: 0, m22: 0.37, m23: 0, m31: 3.3, m32: 2.1, m33: 1)),
            ("pan", Homography(m11: 1, m12: 0, m13: 0, m21: 0, m22: 1, m23: 0, m31: -0.43, m32: 0.71, m33: 1)),
            ("squeezed", Homography(m11: 2.6, m12: 0, m13: 0, m21: 0, m22: 1.1, m23: 0, m31: -5, m32: -3, m33: 1)),
            ("mirrored", Homography(m11: -0.8, m12: 0, m13: 0, m21: 0, m22: -0.9, m23: 0, m31: 180, m32: 130, m33: 1)),
        ]
        for (i, m13) in [0.0004, 0.0021, -0.0016, 0.009].enumerated() {
            // A face turned about the vertical axis: rows of texels converge toward its far side.
            let cy = 60.0
            maps.append(("turned \(i)", Homography(m11: 0.9 + Double(i) * 0.35, m12: cy * m13, m13: m13,
                                                     m21: 0, m22: 1, m23: 0, m31: -4, m32: 0, m33: 1)))
        }
        for (i, angle) in [0.02, 0.11, 0.6, 2.4].enumerated() {
            let (c, s) = (cos(angle), sin(angle))
            maps.append(("rotated \(i)", Homography(m11: c * 0.9, m12: s * 0.9, m13: 0.0003, m21: -s * 0.9, m22: c * 0.9,
                                                      m23: -0.0002, m31: 40, m32: -10, m33: 1)))
        }
        return maps
    }()

    @Test("every pixel is the reference sample, at full opacity and mixed, inside a sub-rectangle and clamped at its edges")
    func matchesReference() {
        let (width, height, stride) = (173, 131, 181)
        let texels = WarpKernelTests.texture(width: width, height: height, stride: stride)
        // The box: a sub-rectangle of the picture (an image's part drawn), in 1/256 texel.
        let (lowX, highX, lowY, highY) = (3 * 256, (width - 5) * 256, 2 * 256, (height - 4) * 256)
        let canvasWidth = 211
        var mismatches: [String] = []
        texels.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            for (name, map) in WarpKernelTests.maps {
                let reference = WarpSource(texels: base, stride: stride, map: map, lowX: lowX, highX: highX,
                                           lowY: lowY, highY: highY, opaque: false)
                var m = SegueWarpMap(m11: map.m11, m12: map.m12, m13: map.m13, m21: map.m21, m22: map.m22,
                                     m23: map.m23, m31: map.m31, m32: map.m32, m33: map.m33)
                for k: UInt32 in [256, 77] {
                    for y in Swift.stride(from: 0, to: 160, by: 3) {
                        // Spans that start and end off the segment grid, and one pixel long.
                        for (x0, end) in [(0, canvasWidth), (5, 190), (37, 38)] {
                            let under = (0..<canvasWidth).map { UInt32(truncatingIfNeeded: $0 &* 2654435761 ^ y) | 0xFF00_0000 }
                            var got = under, want = under
                            got.withUnsafeMutableBufferPointer { row in
                                segue_warp_row(row.baseAddress!, Int32(x0), Int32(end), Int32(y), &m, Int32(WarpSource.segment),
                                               base, stride, Int64(lowX), Int64(highX), Int64(lowY), Int64(highY), k)
                            }
                            want.withUnsafeMutableBufferPointer { row in
                                reference.fill(row.baseAddress!, y: y, x0: x0, x1: end, k: 256)
                            }
                            for x in x0..<end where k != 256 { want[x] = WarpKernelTests.mix(under[x], want[x], k) }
                            if got != want, let x = (0..<canvasWidth).first(where: { got[$0] != want[$0] }) {
                                mismatches.append("\(name), k \(k), row \(y), span \(x0)..<\(end): pixel \(x)")
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.count == 0, "first: \(mismatches.prefix(3))")
    }

    /// q (256 - k) + p k per channel over 256, rounded: the kernel's mixing of a sample into a pixel.
    static func mix(_ q: UInt32, _ p: UInt32, _ k: UInt32) -> UInt32 {
        let g = 256 - k
        let rb = (((q & 0x00FF00FF) &* g &+ (p & 0x00FF00FF) &* k &+ 0x00800080) >> 8) & 0x00FF00FF
        let ag = (((q >> 8) & 0x00FF00FF) &* g &+ ((p >> 8) & 0x00FF00FF) &* k &+ 0x00800080) & 0xFF00FF00
        return rb | ag
    }
}
