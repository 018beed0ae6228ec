import CSegueAV
import CSegueKernels

/// Writable planes of a yuv420p picture. Unchecked like the frames they belong to: threads
/// write disjoint bands of rows.
struct YUVPlanes: @unchecked Sendable {
    var y: UnsafeMutablePointer<UInt8>, yStride: Int
    var u: UnsafeMutablePointer<UInt8>, uStride: Int
    var v: UnsafeMutablePointer<UInt8>, vStride: Int

    /// The planes of the rows from `row` on (an even row).
    func from(row: Int) -> YUVPlanes {
        YUVPlanes(y: y + row * yStride, yStride: yStride, u: u + row / 2 * uStride, uStride: uStride,
                  v: v + row / 2 * vStride, vStride: vStride)
    }
}

/// A frame's yuv420p copy, which the compositor writes band by band right after drawing each
/// band (on the thread that drew it, while its pixels are still in the cache). It lives in
/// FFmpeg's reference-counted memory, which an encoder takes by reference, without a copy.
///
/// Like its frame's pixels, its planes are written by several threads at once, each its own
/// band, and read whole by one thread after that.
final class YUVFrame: @unchecked Sendable {
    let frame: OpaquePointer
    let width: Int, height: Int
    /// Valid from `prepare()` until the picture is handed to an encoder.
    private(set) var planes: YUVPlanes?

    /// `output` names the file the frames are for, in errors.
    init(width: Int, height: Int, for output: String) throws {
        precondition(width % 2 == 0 && height % 2 == 0, "yuv420p needs an even width and height")
        var error = SegueAVError()
        guard let frame = segue_yuv_frame_new(Int32(width), Int32(height), &error) else {
            throw ExportError.output(path: output, reason: error.text)
        }
        self.frame = frame
        self.width = width
        self.height = height
    }

    deinit { segue_yuv_frame_free(frame) }

    /// Makes the planes writable (memory of their own if an encoder still holds the last
    /// picture) before the frame is drawn again.
    func prepare(for output: String) throws {
        var error = SegueAVError()
        var pointers: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil]
        var strides: [Int32] = [0, 0, 0]
        guard segue_yuv_frame_planes(frame, &pointers, &strides, &error) == 0 else {
            throw ExportError.output(path: output, reason: error.text)
        }
        planes = YUVPlanes(y: pointers[0]!, yStride: Int(strides[0]), u: pointers[1]!, uStride: Int(strides[1]),
                           v: pointers[2]!, vStride: Int(strides[2]))
    }

    /// Appends the picture's planes, each row packed (Y, then Cb, then Cr), to `bytes`.
    func append(to bytes: inout [UInt8]) {
        guard let planes else { preconditionFailure("a yuv frame read before it was drawn") }
        for (plane, stride, w, h) in [(planes.y, planes.yStride, width, height), (planes.u, planes.uStride, width / 2, height / 2),
                                      (planes.v, planes.vStride, width / 2, height / 2)] {
            for row in 0..<h { bytes.append(contentsOf: UnsafeBufferPointer(start: plane + row * stride, count: w)) }
        }
    }
}

