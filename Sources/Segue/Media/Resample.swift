import CSegueKernels
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
    /// The input indices are counted from `first` (the input held is a part of one whose
    /// index `first` is its index 0), the weights the same as for the whole input.
    init(inputCount: Int, from: Double, length: Double, outputCount: Int, first held: Int = 0) {
        let scale = length / Double(outputCount)
        let stretch = max(scale, 1)
        let support = 3 * stretch
        let (low, high) = FilterTaps.reads(inputCount: inputCount, from: from, length: length)
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
            starts.append(first - held)
            counts.append(raw.count)
            offsets.append(weights.count)
            weights.append(contentsOf: raw.map { Float($0 / total) })
        }
    }

    /// The input samples the taps of `[from, from + length)` may read: those the interval
    /// touches, and no other (a crop is filtered from its own pixels).
    static func reads(inputCount: Int, from: Double, length: Double) -> (low: Int, high: Int) {
        let low = max(0, Int(from.rounded(.down)))
        return (low, min(inputCount - 1, max(low, Int((from + length).rounded(.up)) - 1)))
    }

    /// The taps as the C kernels read them, valid inside `body`.
    func withKernelTaps<R>(_ body: (UnsafePointer<SegueTaps>) -> R) -> R {
        starts.withUnsafeBufferPointer { s in
            counts.withUnsafeBufferPointer { c in
                offsets.withUnsafeBufferPointer { o in
                    weights.withUnsafeBufferPointer { w in
                        var taps = SegueTaps(starts: s.baseAddress, counts: c.baseAddress, offsets: o.baseAddress,
                                             weights: w.baseAddress, outputs: s.count)
                        return body(&taps)
                    }
                }
            }
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
    /// Two passes over four channels at once in single precision (`segue_resample_row` and
    /// `segue_resample_column`), the same operations in the same order on every machine and at
    /// every vector width, so the result is the same everywhere.
    public func resampled(from source: Rect, width outWidth: Int, height outHeight: Int) -> Image {
        resampled(from: source, width: outWidth, height: outHeight, threads: 1)
    }

    /// As `resampled(from:width:height:)`, the output rows cut into `threads` parts made at
    /// once (the first picture of an export, while the cores are otherwise idle). Each part
    /// filters the source rows its output rows need, so the pixels are the same for any
    /// number of parts.
    func resampled(from source: Rect, width outWidth: Int, height outHeight: Int, threads: Int) -> Image {
        if source == Rect(size: size) && outWidth == width && outHeight == height { return self }
        return resampled(asPart: PixelRegion(x: 0, y: 0, width: width, height: height), ofWidth: width, height: height,
                         from: source, width: outWidth, height: outHeight, threads: threads)
    }

    /// As `resampled(from:width:height:threads:)` of a `wholeWidth` x `wholeHeight` picture
    /// of which this image is the part `region`, `source` given in the whole picture's pixels:
    /// the same pixels as the whole picture gives, when the part holds every pixel that
    /// `source` reads (`FilterTaps.reads`).
    func resampled(asPart region: PixelRegion, ofWidth wholeWidth: Int, height wholeHeight: Int,
                   from source: Rect, width outWidth: Int, height outHeight: Int, threads: Int) -> Image {
        precondition(outWidth > 0 && outHeight > 0 && threads >= 1 && region.width == width && region.height == height)
        let horizontal = FilterTaps(inputCount: wholeWidth, from: source.minX, length: source.width, outputCount: outWidth, first: region.x)
        let vertical = FilterTaps(inputCount: wholeHeight, from: source.minY, length: source.height, outputCount: outHeight, first: region.y)
        precondition(horizontal.starts.min()! >= 0 && zip(horizontal.starts, horizontal.counts).allSatisfy { $0 + $1 <= width }
                     && vertical.starts.min()! >= 0 && zip(vertical.starts, vertical.counts).allSatisfy { $0 + $1 <= height },
                     "the part does not hold the pixels the resampling reads")
        // Parts of at least 64 rows: fewer would filter many source rows twice.
        let parts = max(1, min(threads, outHeight / 64))
        let result = [UInt32](unsafeUninitializedCapacity: outWidth * outHeight) { dst, initialized in
            let output = UnsafeMutableSendablePointer(dst.baseAddress!)
            if parts == 1 {
                resampleRows(0..<outHeight, horizontal: horizontal, vertical: vertical, outWidth: outWidth, into: output.pointer)
            } else {
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let rows = outHeight * part / parts..<outHeight * (part + 1) / parts
                    resampleRows(rows, horizontal: horizontal, vertical: vertical, outWidth: outWidth, into: output.pointer)
                }
            }
            initialized = outWidth * outHeight
        }
        // A resampled opaque picture is opaque: each alpha is 255 times weights summing to 1.
        return Image(width: outWidth, height: outHeight, pixels: result, isOpaque: isOpaque || result.allSatisfy { $0 >> 24 == 0xFF })
    }

    /// Output rows `rows` of a resampling, into `dst` (the whole output, `outWidth` a row).
    private func resampleRows(_ rows: Range<Int>, horizontal: FilterTaps, vertical: FilterTaps, outWidth: Int,
                              into dst: UnsafeMutablePointer<UInt32>) {
        // Rows go through the horizontal pass as the vertical pass first needs them (its
        // windows only move down), into a ring of as many rows as the longest window: a few
        // hundred kilobytes instead of every source row at the output's width.
        let ring = vertical.counts.max()!
        let middle = UnsafeMutablePointer<Float>.allocate(capacity: 4 * ring * outWidth)
        let line = UnsafeMutablePointer<Float>.allocate(capacity: 4 * width)
        defer { middle.deallocate(); line.deallocate() }
        var next = vertical.starts[rows.lowerBound]   // the next source row to filter horizontally
        // Only the columns the horizontal taps read are unpacked (a crop reads part of a row).
        let lowColumn = horizontal.starts.min()!
        let highColumn = zip(horizontal.starts, horizontal.counts).map { $0 + $1 }.max()!
        horizontal.withKernelTaps { taps in
            vertical.weights.withUnsafeBufferPointer { vw in
                pixels.withUnsafeBufferPointer { src in
                    for y in rows {
                        let start = vertical.starts[y], count = vertical.counts[y]
                        next = max(next, start)
                        while next < start + count {
                            segue_resample_row(src.baseAddress! + next * width, lowColumn, highColumn, taps, line,
                                               middle + 4 * (next % ring) * outWidth)
                            next += 1
                        }
                        segue_resample_column(middle, ring, outWidth, start, count, vw.baseAddress! + vertical.offsets[y],
                                              dst + y * outWidth)
                    }
                }
            }
        }
    }
}

/// A pointer handed to the threads that write disjoint parts of what it points to.
private struct UnsafeMutableSendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}
