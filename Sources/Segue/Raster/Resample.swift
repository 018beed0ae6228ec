import Foundation

/// The taps of a 1D resampling filter: for each output sample, the first input index and
/// its fixed-point weights (summing to exactly `FilterTaps.one`).
struct FilterTaps {
    static let shift = 14
    static let one: Int32 = 1 << 14

    var starts: [Int] = []
    var counts: [Int] = []
    var offsets: [Int] = []
    var weights: [Int32] = []

    /// Lanczos-3 taps mapping `outputCount` samples onto `[from, from + length)` of an input
    /// of `inputCount` samples. When shrinking, the filter is widened by the scale factor so
    /// that it averages every input sample it covers instead of skipping some (no aliasing).
    init(inputCount: Int, from: Double, length: Double, outputCount: Int) {
        let scale = length / Double(outputCount)
        let stretch = max(scale, 1)
        let support = 3 * stretch
        // The input samples the window may read: those the source interval touches.
        let low = max(0, Int(from.rounded(.down)))
        let high = min(inputCount - 1, max(low, Int((from + length).rounded(.up)) - 1))
        for i in 0..<outputCount {
            let center = from + (Double(i) + 0.5) * scale
            let first = max(low, Int((center - support).rounded(.down)))
            let last = min(high, Int((center + support).rounded(.up)))
            var raw: [Double] = []
            for j in first...last {
                raw.append(FilterTaps.lanczos3((Double(j) + 0.5 - center) / stretch))
            }
            var total = raw.reduce(0, +)
            if total <= 0 {
                // Only possible for a window cut off far from its center: take the nearest sample.
                let nearest = min(max(Int(center.rounded(.down)), first), last)
                raw = (first...last).map { $0 == nearest ? 1 : 0 }
                total = 1
            }
            var fixed = raw.map { Int32(($0 / total * Double(FilterTaps.one)).rounded()) }
            // Put the rounding error on the largest tap, so a flat input stays exactly flat.
            let error = FilterTaps.one - fixed.reduce(0, +)
            if let largest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[largest] += error }
            starts.append(first)
            counts.append(fixed.count)
            offsets.append(weights.count)
            weights.append(contentsOf: fixed)
        }
    }

    static func lanczos3(_ x: Double) -> Double {
        let ax = abs(x)
        if ax < 1e-12 { return 1 }
        if ax >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
}

extension Image {
    /// The part `source` of this image (in pixels, fractions allowed) resampled to
    /// `width` x `height` with a Lanczos-3 filter, in premultiplied alpha.
    ///
    /// Integer fixed-point arithmetic throughout, so the result is the same on every machine.
    public func resampled(from source: Rect, width outWidth: Int, height outHeight: Int) -> Image {
        precondition(outWidth > 0 && outHeight > 0)
        if source == Rect(size: size) && outWidth == width && outHeight == height { return self }
        let horizontal = FilterTaps(inputCount: width, from: source.minX, length: source.width, outputCount: outWidth)
        let vertical = FilterTaps(inputCount: height, from: source.minY, length: source.height, outputCount: outHeight)

        // Only the rows the vertical pass reads go through the horizontal pass.
        let firstRow = vertical.starts.first!
        let lastRow = zip(vertical.starts, vertical.counts).map { $0 + $1 - 1 }.max()!
        let rows = lastRow - firstRow + 1
        var middle = [UInt32](repeating: 0, count: rows * outWidth)
        pixels.withUnsafeBufferPointer { src in
            middle.withUnsafeMutableBufferPointer { mid in
                for r in 0..<rows {
                    let srcRow = (firstRow + r) * width
                    for x in 0..<outWidth {
                        mid[r * outWidth + x] = Image.filter(horizontal, x) { src[srcRow + $0] }
                    }
                }
            }
        }
        var out = [UInt32](repeating: 0, count: outWidth * outHeight)
        middle.withUnsafeBufferPointer { mid in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        dst[y * outWidth + x] = Image.filter(vertical, y) { mid[($0 - firstRow) * outWidth + x] }
                    }
                }
            }
        }
        return Image(width: outWidth, height: outHeight, pixels: out)
    }

    /// One output pixel of a 1D pass: the weighted sum of the taps of sample `i`, rounded,
    /// clamped to 0...255 and to a valid premultiplied pixel (no channel above alpha).
    @inline(__always)
    private static func filter(_ taps: FilterTaps, _ i: Int, _ read: (Int) -> UInt32) -> UInt32 {
        var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0, a: Int32 = 0
        let start = taps.starts[i], offset = taps.offsets[i]
        for k in 0..<taps.counts[i] {
            let w = taps.weights[offset + k]
            let p = read(start + k)
            r += w * Int32(p & 0xFF)
            g += w * Int32((p >> 8) & 0xFF)
            b += w * Int32((p >> 16) & 0xFF)
            a += w * Int32(p >> 24)
        }
        @inline(__always) func channel(_ v: Int32, _ limit: Int32) -> UInt32 {
            UInt32(min(max((v + (FilterTaps.one >> 1)) >> FilterTaps.shift, 0), limit))
        }
        let alpha = channel(a, 255)
        let limit = Int32(alpha)
        return channel(r, limit) | channel(g, limit) << 8 | channel(b, limit) << 16 | alpha << 24
    }
}
