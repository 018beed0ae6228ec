import CSegueAV
import CSegueKernels
import Foundation

/// An RGBA frame the compositor draws into: premultiplied, 8 bits per channel, rows packed.
///
/// Its pixels are raw memory that several threads write at once, each its own band of rows
/// (the compositor cuts the frame so), and that one thread at a time
/// reads whole after that: the compiler cannot check that discipline, hence unchecked.
public final class FrameBuffer: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// The pixels, or (a frame kept only in yuv420p) nothing worth reading.
    let pixels: UnsafeMutablePointer<UInt32>
    /// The frame's yuv420p copy, for a frame kept only in yuv420p: the compositor draws each
    /// band in a scratch buffer of its own, converts it into this copy and lets it go, so no
    /// full-size RGBA frame is ever written (a third of an MP4 export's memory traffic for
    /// composing, 8 MB a frame at 1080x1920).
    let yuv: YUVFrame?
    /// Whether the frame has pixels of its own (a frame kept only in yuv420p has none, nor has
    /// a frame drawn and dropped).
    let keepsPixels: Bool

    public convenience init(width: Int, height: Int) {
        self.init(width: width, height: height, yuv: nil)
    }

    /// With `yuv`, a frame that exists only in yuv420p.
    convenience init(width: Int, height: Int, yuv: YUVFrame?) {
        self.init(width: width, height: height, yuv: yuv, keepsPixels: yuv == nil)
    }

    /// A frame for a sink that reads it as `form` (`output` names the sink in errors).
    convenience init(width: Int, height: Int, readAs form: FrameForm, for output: String) throws {
        switch form {
        case .rgba: self.init(width: width, height: height)
        case .yuv420p: self.init(width: width, height: height, yuv: try YUVFrame(width: width, height: height, for: output))
        case .none: self.init(width: width, height: height, yuv: nil, keepsPixels: false)
        }
    }

    private init(width: Int, height: Int, yuv: YUVFrame?, keepsPixels: Bool) {
        precondition(width > 0 && height > 0)
        precondition(yuv == nil || (yuv!.width == width && yuv!.height == height), "frame and yuv copy differ in size")
        precondition(!keepsPixels || yuv == nil, "a frame keeps its pixels or a yuv420p copy")
        self.width = width
        self.height = height
        self.yuv = yuv
        self.keepsPixels = keepsPixels
        let count = keepsPixels ? width * height : 1
        pixels = .allocate(capacity: count)
        pixels.initialize(repeating: 0, count: count)
    }

    deinit { pixels.deallocate() }

    /// The frame's bytes, in place: R, G, B, A for each pixel, row after row.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(keepsPixels, "the pixels of a frame that keeps none (kept only in yuv420p, or drawn and dropped)")
        return try body(UnsafeRawBufferPointer(start: pixels, count: width * height * 4))
    }

    /// A copy of the frame's bytes: R, G, B, A for each pixel, row after row.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// A copy of the pixels as an Image.
    public func image() -> Image {
        precondition(keepsPixels, "the pixels of a frame that keeps none (kept only in yuv420p, or drawn and dropped)")
        return Image(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height)))
    }

    /// The packed RGBA pixel at (x, y).
    public subscript(x: Int, y: Int) -> UInt32 {
        precondition(keepsPixels, "the pixels of a frame that keeps none (kept only in yuv420p, or drawn and dropped)")
        return pixels[y * width + x]
    }
}

/// What a sink reads of the frames the exporter gives it.
public enum FrameForm: Sendable {
    /// The RGBA pixels.
    case rgba
    /// The yuv420p copy only: the compositor converts each band right after drawing it, in a
    /// band-sized scratch buffer, and no RGBA frame is kept.
    case yuv420p
    /// Nothing: each band is drawn in a scratch buffer, as for yuv420p, and dropped.
    case none
}

extension FrameBuffer {
    /// Calls `body` with the frame's pixels with straight alpha (as files store them): the
    /// pixels themselves when the frame is opaque, else a straight copy in `scratch`.
    func withStraightAlpha<R>(scratch: inout [UInt32], _ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        let count = width * height
        let opaque = (0..<count).allSatisfy { pixels[$0] >> 24 == 0xFF }
        if opaque { return try pixels.withMemoryRebound(to: UInt8.self, capacity: count * 4) { try body($0) } }
        if scratch.count != count { scratch = [UInt32](repeating: 0, count: count) }
        return try scratch.withUnsafeMutableBufferPointer { straight in
            for i in 0..<count { straight[i] = unpremultiply(pixels[i]) }
            return try UnsafeRawPointer(straight.baseAddress!).withMemoryRebound(to: UInt8.self, capacity: count * 4) { try body($0) }
        }
    }

    /// Writes the frame as a PNG file (straight alpha, as PNG stores it), deflated at zlib
    /// `level` (1 fastest to 9 smallest; nil: FFmpeg's default): the same pixels at any level.
    public func writePNG(to path: String, level: Int? = nil) throws {
        var error = SegueAVError()
        var scratch: [UInt32] = []
        let result = withStraightAlpha(scratch: &scratch) {
            segue_png_write(path, $0, Int32(width), Int32(height), Int32(width * 4), Int32(level ?? -1), &error)
        }
        guard result == 0 else { throw ExportError.output(path: path, reason: error.text) }
    }
}

extension FrameBuffer {
    /// Converts rows `rows` of the frame (opaque, even width, an even first row and count)
    /// to yuv420p with BT.709's coefficients in limited range, as the stream is tagged: Y
    /// from each pixel, Cb and Cr from the average of each 2x2 block. Integer arithmetic
    /// with 16 fractional bits (a C loop built for each vector width), so the bytes are the
    /// same on every machine.
    /// `pixels` is where the frame's rows are addressed from (the frame's own pixels unless
    /// the band was drawn elsewhere).
    func convert(rows: Range<Int>, from pixels: UnsafeMutablePointer<UInt32>? = nil, to planes: YUVPlanes) {
        precondition(width % 2 == 0 && rows.lowerBound % 2 == 0 && rows.count % 2 == 0)
        let band = planes.from(row: rows.lowerBound)
        segue_rgba_to_yuv420p((pixels ?? self.pixels) + rows.lowerBound * width, Int32(width), Int32(rows.count),
                              band.y, band.yStride, band.u, band.uStride, band.v, band.vStride)
    }

    /// The frame in yuv420p: the copy the compositor wrote while drawing it, or else (a frame
    /// made without one) converted now into `spare`, made when first needed.
    func yuv420p(spare: inout YUVFrame?, for output: String) throws -> YUVFrame {
        if let yuv { return yuv }
        precondition(keepsPixels, "a frame drawn and dropped has nothing to convert")
        let target = try spare ?? YUVFrame(width: width, height: height, for: output)
        spare = target
        try target.prepare(for: output)
        convert(rows: 0..<height, to: target.planes!)
        return target
    }
}
