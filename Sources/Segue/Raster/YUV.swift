import CSegueKernels
import Dispatch

/// Writable planes of a yuv420p picture. Bands of rows are written from several threads at
/// once, each its own rows, as a FrameBuffer is.
struct YUVPlanes: @unchecked Sendable {
    var y: UnsafeMutablePointer<UInt8>, yStride: Int
    var u: UnsafeMutablePointer<UInt8>, uStride: Int
    var v: UnsafeMutablePointer<UInt8>, vStride: Int
}

extension FrameBuffer {
    /// Converts the frame (opaque, even width and height) to yuv420p with BT.709's
    /// coefficients in limited range, as the stream is tagged: Y from each pixel, Cb and Cr
    /// from the average of each 2x2 block. Integer arithmetic with 16 fractional bits (a C
    /// loop the compiler vectorizes), so the bytes are the same on every machine; `threads`
    /// bands of rows run in parallel.
    func convert(to planes: YUVPlanes, threads: Int) {
        let width = self.width, height = self.height
        precondition(width % 2 == 0 && height % 2 == 0)
        let pairs = height / 2
        let bands = max(1, min(threads, pairs))
        let convertRows: @Sendable (Int) -> Void = { band in
            segue_rgba_to_yuv420p(self.pixels, Int32(width), Int32(pairs * band / bands), Int32(pairs * (band + 1) / bands),
                                  planes.y, planes.yStride, planes.u, planes.uStride, planes.v, planes.vStride)
        }
        if bands == 1 { convertRows(0) } else { DispatchQueue.concurrentPerform(iterations: bands, execute: convertRows) }
    }
}
