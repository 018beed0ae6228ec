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
    /// from the average of each 2x2 block. Integer arithmetic with 16 fractional bits, so
    /// the bytes are the same on every machine; `threads` bands of rows run in parallel.
    func convert(to planes: YUVPlanes, threads: Int) {
        let width = self.width, height = self.height
        precondition(width % 2 == 0 && height % 2 == 0)
        let pairs = height / 2
        let bands = max(1, min(threads, pairs))
        let convertRows: @Sendable (Int) -> Void = { band in
            let pixels = self.pixels
            let first = pairs * band / bands, last = pairs * (band + 1) / bands
            for pair in first..<last {
                let top = pixels + (2 * pair) * width, bottom = top + width
                let y0 = planes.y + (2 * pair) * planes.yStride, y1 = y0 + planes.yStride
                let u = planes.u + pair * planes.uStride, v = planes.v + pair * planes.vStride
                var x = 0
                while x < width {
                    let a = top[x], b = top[x + 1], c = bottom[x], d = bottom[x + 1]
                    y0[x] = FrameBuffer.luma(a); y0[x + 1] = FrameBuffer.luma(b)
                    y1[x] = FrameBuffer.luma(c); y1[x + 1] = FrameBuffer.luma(d)
                    let r = Int32(a & 0xFF) &+ Int32(b & 0xFF) &+ Int32(c & 0xFF) &+ Int32(d & 0xFF)
                    let g = Int32((a >> 8) & 0xFF) &+ Int32((b >> 8) & 0xFF) &+ Int32((c >> 8) & 0xFF) &+ Int32((d >> 8) & 0xFF)
                    let bl = Int32((a >> 16) & 0xFF) &+ Int32((b >> 16) & 0xFF) &+ Int32((c >> 16) & 0xFF) &+ Int32((d >> 16) & 0xFF)
                    // Sums of four pixels: 2 more fractional bits.
                    u[x >> 1] = UInt8(truncatingIfNeeded: (-6595 &* r &- 22185 &* g &+ 28780 &* bl &+ (128 << 18) &+ (1 << 17)) >> 18)
                    v[x >> 1] = UInt8(truncatingIfNeeded: (28784 &* r &- 26145 &* g &- 2639 &* bl &+ (128 << 18) &+ (1 << 17)) >> 18)
                    x += 2
                }
            }
        }
        if bands == 1 { convertRows(0) } else { DispatchQueue.concurrentPerform(iterations: bands, execute: convertRows) }
    }

    /// BT.709 luma in limited range (16...235) of one pixel.
    @inline(__always)
    static func luma(_ p: UInt32) -> UInt8 {
        let r = Int32(p & 0xFF), g = Int32((p >> 8) & 0xFF), b = Int32((p >> 16) & 0xFF)
        return UInt8(truncatingIfNeeded: (11966 &* r &+ 40254 &* g &+ 4064 &* b &+ (16 << 16) &+ (1 << 15)) >> 16)
    }
}
