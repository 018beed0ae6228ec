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

/// A frame's yuv420p copy, kept with the frame (frames are pooled, so is it): converted on
/// the compositing thread, beside the encoder, and read by the encoder without a copy.
final class YUVCopy: @unchecked Sendable {
    let planes: YUVPlanes
    private let bytes: UnsafeMutablePointer<UInt8>
    /// Whether it holds the frame's current pixels: set when converted, cleared when the
    /// frame is drawn again.
    var isCurrent = false

    init(width: Int, height: Int) {
        let luma = width * height, chroma = (width / 2) * (height / 2)
        bytes = .allocate(capacity: luma + 2 * chroma)
        planes = YUVPlanes(y: bytes, yStride: width, u: bytes + luma, uStride: width / 2, v: bytes + luma + chroma, vStride: width / 2)
    }

    deinit { bytes.deallocate() }
}

extension FrameBuffer {
    /// The frame in yuv420p (see `convert(to:threads:)`), converted now unless it already is.
    func yuv(threads: Int) -> YUVCopy {
        let copy = yuvCopy ?? YUVCopy(width: width, height: height)
        yuvCopy = copy
        if !copy.isCurrent {
            convert(to: copy.planes, threads: threads)
            copy.isCurrent = true
        }
        return copy
    }
}
