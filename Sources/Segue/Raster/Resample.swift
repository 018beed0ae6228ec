import Foundation

/// The taps of a 1D resampling filter: for each output sample, the first input index and
/// its weights (summing to 1).
struct FilterTaps {
    var starts: [Int] = []
    var counts: [Int] = []
    var offsets: [Int] = []
    var weights: [Float] = []

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
            var raw = (first...last).map { FilterTaps.lanczos3((Double($0) + 0.5 - center) / stretch) }
            var total = raw.reduce(0, +)
            if total <= 0 {
                // Only possible for a window cut off far from its center: take the nearest sample.
                let nearest = min(max(Int(center.rounded(.down)), first), last)
                raw = (first...last).map { $0 == nearest ? 1 : 0 }
                total = 1
            }
            starts.append(first)
            counts.append(raw.count)
            offsets.append(weights.count)
            weights.append(contentsOf: raw.map { Float($0 / total) })
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
    /// Two passes over four channels at once in single precision, the same operations in the
    /// same order on every x86-64 or arm64 machine, so the result is the same everywhere.
    public func resampled(from source: Rect, width outWidth: Int, height outHeight: Int) -> Image {
        precondition(outWidth > 0 && outHeight > 0)
        if source == Rect(size: size) && outWidth == width && outHeight == height { return self }
        let horizontal = FilterTaps(inputCount: width, from: source.minX, length: source.width, outputCount: outWidth)
        let vertical = FilterTaps(inputCount: height, from: source.minY, length: source.height, outputCount: outHeight)

        // Rows go through the horizontal pass as the vertical pass first needs them (its
        // windows only move down), into a ring of as many rows as the longest window: a few
        // hundred kilobytes instead of every source row at the output's width.
        let ring = vertical.counts.max()!
        let middle = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: ring * outWidth)
        let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: max(width, outWidth))
        defer { middle.deallocate(); line.deallocate() }
        var next = vertical.starts.first!   // the next source row to filter horizontally
        // Only the columns the horizontal taps read are unpacked (a crop reads part of a row).
        let lowColumn = horizontal.starts.min()!
        let highColumn = zip(horizontal.starts, horizontal.counts).map { $0 + $1 }.max()!

        var result = [UInt32](repeating: 0, count: outWidth * outHeight)
        horizontal.weights.withUnsafeBufferPointer { hw in
            vertical.weights.withUnsafeBufferPointer { vw in
                pixels.withUnsafeBufferPointer { src in
                    result.withUnsafeMutableBufferPointer { dst in
                        for y in 0..<outHeight {
                            let start = vertical.starts[y], count = vertical.counts[y], offset = vertical.offsets[y]
                            next = max(next, start)
                            while next < start + count {
                                let row = src.baseAddress! + next * width
                                for x in lowColumn..<highColumn { line[x] = Image.unpack(row[x]) }
                                let out = middle + (next % ring) * outWidth
                                for x in 0..<outWidth {
                                    let first = horizontal.starts[x], taps = horizontal.offsets[x]
                                    var sum = SIMD4<Float>()
                                    for k in 0..<horizontal.counts[x] { sum += hw[taps + k] * line[first + k] }
                                    out[x] = sum
                                }
                                next += 1
                            }
                            for x in 0..<outWidth { line[x] = SIMD4<Float>() }
                            for k in 0..<count {
                                let w = vw[offset + k], row = middle + ((start + k) % ring) * outWidth
                                for x in 0..<outWidth { line[x] += w * row[x] }
                            }
                            let out = dst.baseAddress! + y * outWidth
                            for x in 0..<outWidth { out[x] = Image.pack(line[x]) }
                        }
                    }
                }
            }
        }
        return Image(width: outWidth, height: outHeight, pixels: result)
    }

    @inline(__always)
    static func unpack(_ p: UInt32) -> SIMD4<Float> {
        SIMD4(Float(p & 0xFF), Float((p >> 8) & 0xFF), Float((p >> 16) & 0xFF), Float(p >> 24))
    }

    /// Rounded to whole levels, clamped to 0...255 and to a valid premultiplied pixel (no
    /// channel above alpha).
    /// (Truncation toward zero equals rounding down wherever the result survives the clamp
    /// to 0 and up, and it is one instruction, where rounding down is a libm call per lane on
    /// x86-64's baseline.)
    @inline(__always)
    static func pack(_ v: SIMD4<Float>) -> UInt32 {
        let w = v + 0.5
        let t = SIMD4<Int32>(Int32(w.x), Int32(w.y), Int32(w.z), Int32(w.w))
        let a = min(max(t.w, 0), 255)
        let c = t.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: a))
        return UInt32(c.x) | UInt32(c.y) << 8 | UInt32(c.z) << 16 | UInt32(a) << 24
    }
}
