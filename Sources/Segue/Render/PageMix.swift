import CSegueKernels
import Dispatch

extension PagePictures {
    /// The pages as a transition that reads them mixed (`PixelMixer.premix`) is handed them:
    /// the one page where the weight leaves only it, else the two mixed by it into the picture
    /// `picture` gives, `threads` parts of rows at a time, as both pages. The rows' samples are
    /// then the mix's: a bilinear sample of the mix is the mix of the pages' samples within a
    /// level. The mixed picture, if any, must be kept while the pages are read.
    func premixed(_ weight: Float, threads: Int, into picture: () -> FrameBuffer) -> (pages: PagePictures, mixed: FrameBuffer?) {
        let k = UInt32(PagePictures.fixed(weight))
        if k == 0 { return (PagePictures(a: a, b: a, width: width, height: height), nil) }
        if k == 256 { return (PagePictures(a: b, b: b, width: width, height: height), nil) }
        let mixed = picture(), pages = self, width = width, height = height
        precondition(mixed.width == width && mixed.height == height, "the pages' mix is not the pages' size")
        // Parts of at least 64 rows, each a run of whole rows.
        let parts = max(1, min(threads, height / 64))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let rows = height * part / parts..<height * (part + 1) / parts
            segue_mix_constant(mixed.pixels + rows.lowerBound * width, pages.a(rows.lowerBound), pages.b(rows.lowerBound), k,
                               Int32(rows.count * width))
        }
        return (PagePictures(a: mixed.pixels, b: mixed.pixels, width: width, height: height), mixed)
    }
}

extension SpareBuffers {
    /// A picture for the pages' mix: drawn over wholly each frame.
    func mix(width: Int, height: Int) -> FrameBuffer {
        mixes.withLock { mixes in
            mixes.removeAll { $0.width != width || $0.height != height }
            return mixes.popLast()
        } ?? FrameBuffer(width: width, height: height)
    }

    func give(mix: FrameBuffer) {
        mixes.withLock { mixes in
            mixes.append(mix)
            if mixes.count > 2 { mixes.removeFirst(mixes.count - 2) }
        }
    }
}
