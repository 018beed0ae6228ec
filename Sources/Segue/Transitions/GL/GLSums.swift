import CSegueKernels

/// A gl-transitions port whose every pixel is a sum: a sample of each page, wherever it lies,
/// times a weight, over a colour of the frame times a weight (a page seen where it stands, or a
/// floor with the pages' reflections added on it: swap, doorway). GL's sum is clamped to 0...1,
/// as the kernel's is to 255. The port works out a row's positions and weights (swap's and
/// doorway's in C, `glports.c`), and the C kernel samples (bilinear, in 256ths, as the warp
/// does) and adds, copying a page where a run of pixels shows only that page.
public protocol GLSumWarp: GLFramed {
    /// The colour under the pages (opaque black unless the port says).
    func floor(_ k: Frame) -> SIMD4<Float>
    /// A row's sums at height `v` for the kernel, each column's u in `us`: texel positions (as
    /// `GLWarp.positions` writes them) of the outgoing page's sample, x then y, the incoming's,
    /// then the outgoing page's weight, the incoming's and the floor's, seven runs of
    /// `us.count` numbers from `into`.
    func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width: Float, height: Float,
                   into: UnsafeMutablePointer<Float>)
    /// The sums of every `SEGUE_AHEAD_STRIDE`-th column of the row at height `v` (columns 0,
    /// stride, 2 stride, ...), written as `positions` writes a row's, seven runs of the columns'
    /// count divided by the stride, rounded up: the kernel asks the cache for their texels
    /// `SEGUE_AHEAD_ROWS` rows before it draws them. False, by default, where the port has no
    /// cheap way to them; the kernel then guesses where its samples go (`prefetch_rows`).
    func positionsAhead(_ v: Float, _ k: Frame, width: Float, height: Float, into: UnsafeMutablePointer<Float>) -> Bool
}

extension GLSumWarp {
    public func floor(_ k: Frame) -> SIMD4<Float> { vec4(0, 0, 0, 1) }

    public func positionsAhead(_ v: Float, _ k: Frame, width: Float, height: Float, into: UnsafeMutablePointer<Float>) -> Bool { false }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, w = Float(width), h = Float(height), us = GLFrame.columns(width)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), floor = GLFrame.pixel(floor(k))
        let sparse = (width + Int(SEGUE_AHEAD_STRIDE) - 1) / Int(SEGUE_AHEAD_STRIDE)
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / h
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 7 * (width + sparse)) { buffer in
                us.withUnsafeBufferPointer { us in me.positions(us, v, k, width: w, height: h, into: buffer.baseAddress!) }
                let ahead = buffer.baseAddress! + 7 * width, below = y + Int(SEGUE_AHEAD_ROWS)
                let known = below < height && me.positionsAhead(1 - (Float(below) + 0.5) / h, k, width: w, height: h, into: ahead)
                segue_sum_warped(out, pages.a, pages.b, Int32(width), Int32(height), buffer.baseAddress!, known ? ahead : nil, floor, Int32(width))
            }
        }
    }
}

extension GLFrame {
    /// Every `SEGUE_AHEAD_STRIDE`-th of a frame's per-column numbers (columns 0, stride, ...):
    /// what a port's `positionsAhead` reads where its `positions` reads them all.
    static func ahead(_ columns: [Float]) -> [Float] {
        Swift.stride(from: 0, to: columns.count, by: Int(SEGUE_AHEAD_STRIDE)).map { columns[$0] }
    }
}
