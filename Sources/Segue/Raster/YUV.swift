import CSegueKernels

/// Writable planes of a yuv420p picture.
struct YUVPlanes {
    var y: UnsafeMutablePointer<UInt8>, yStride: Int
    var u: UnsafeMutablePointer<UInt8>, uStride: Int
    var v: UnsafeMutablePointer<UInt8>, vStride: Int
}

extension FrameBuffer {
    /// Converts the frame (opaque, even width and height) to yuv420p with BT.709's
    /// coefficients in limited range, as the stream is tagged: Y from each pixel, Cb and Cr
    /// from the average of each 2x2 block. Integer arithmetic with 16 fractional bits (a C
    /// loop built for each vector width), so the bytes are the same on every machine.
    func convert(to planes: YUVPlanes) {
        precondition(width % 2 == 0 && height % 2 == 0)
        segue_rgba_to_yuv420p(pixels, Int32(width), Int32(height),
                              planes.y, planes.yStride, planes.u, planes.uStride, planes.v, planes.vStride)
    }
}
