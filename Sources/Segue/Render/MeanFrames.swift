import CSegueKernels

/// Motion blur's mean of frames: each sample drawn band by band as any frame is, its bands
/// summed into one frame of 16-bit sums, then the sums divided by the count into the frame
/// (and its yuv420p copy). A sample is drawn whole before the next, so that a per-pixel
/// transition's page pictures are drawn and handed back once per sample, not held for all.
extension Compositor {
    /// Draws the mean of `lists` (the draw lists of a blurred frame's samples) into
    /// `frame`; one list is drawn as it is.
    func render(meanOf lists: [[DrawItem]], canvas: Canvas, into frame: FrameBuffer) {
        guard lists.count > 1 else { return render(lists[0], canvas: canvas, into: frame) }
        precondition(lists.count <= MotionBlur.sampleRange.upperBound, "more samples than 16-bit sums hold")
        precondition(frame.width == canvas.width && frame.height == canvas.height, "frame and canvas differ in size")
        let yuv = frame.yuv?.planes
        precondition(frame.yuv == nil || yuv != nil, "a frame kept only in yuv420p, its copy not prepared")
        let sums = spares.sums(count: canvas.width * canvas.height * 4)
        defer { spares.give(sums: sums) }
        let width = canvas.width, count = Int32(lists.count)
        let frame = frame
        let mean: @Sendable (Range<Int>, BandBuffers) -> Void = { rows, buffers in
            let pixels = frame.keepsPixels ? frame.pixels : buffers.buffer(0) - rows.lowerBound * width
            segue_mean(pixels + rows.lowerBound * width, sums.base + rows.lowerBound * width * 4, rows.count * width, count)
            if let yuv { frame.convert(rows: rows, from: pixels, to: yuv) }
        }
        if !lists.contains(where: { $0.contains(where: \.drawsPages) }) {
            let compiled = lists.map { CompiledFrame($0, canvas: canvas, compositor: self) }
            // Layer trees only: each band's samples drawn one after the other while its sums
            // stay in the cache, then averaged.
            forEachBand(of: canvas) { rows, buffers in
                let scratch = buffers.buffer(0) - rows.lowerBound * width
                for (n, sample) in compiled.enumerated() {
                    sample.draw(rows: rows, into: scratch, width: width, buffers: buffers)
                    segue_accumulate(sums.base + rows.lowerBound * width * 4, scratch + rows.lowerBound * width, rows.count * width, n == 0 ? 1 : 0)
                }
                mean(rows, buffers)
            }
            return
        }
        // A per-pixel transition holds its pages' pictures: one sample whole at a time, its
        // pictures handed back before the next takes them.
        for (n, list) in lists.enumerated() {
            draw(list, canvas: canvas, into: nil) { rows, pixels in
                segue_accumulate(sums.base + rows.lowerBound * width * 4, pixels + rows.lowerBound * width, rows.count * width, n == 0 ? 1 : 0)
            }
        }
        forEachBand(of: canvas) { rows, buffers in mean(rows, buffers) }
    }
}

extension DrawItem {
    /// Whether drawing it draws pages offscreen (a per-pixel transition's), in it or its group.
    var drawsPages: Bool {
        switch paint {
        case .pixels: true
        case let .group(items): items.contains(where: \.drawsPages)
        case .solid, .image: false
        }
    }
}

/// A frame's 16-bit channel sums, kept from frame to frame by a compositor's spares.
final class ChannelSums: @unchecked Sendable {   // written band by band, each band by one worker
    let count: Int
    let base: UnsafeMutablePointer<UInt16>

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
    }

    deinit { base.deallocate() }
}

extension SpareBuffers {
    func sums(count: Int) -> ChannelSums {
        sums.withLock { kept in
            kept.removeAll { $0.count != count }
            return kept.popLast()
        } ?? ChannelSums(count: count)
    }

    func give(sums given: ChannelSums) { sums.withLock { $0 = [given] } }
}
