import CSegueAV
import Foundation

/// A failure while exporting: an input that cannot be read, an output that cannot be
/// written, an encoder that refuses, or a job that cannot be done as asked. Each message
/// names the file or the value and what is expected.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    case unreadableImage(path: String, reason: String)
    case imageTooLarge(path: String, width: Int, height: Int, limits: Limits)
    case encoder(path: String, reason: String)
    case output(path: String, reason: String)
    case unknownFormat(output: String)
    case noInputs
    case missingInput(String)
    case unsupportedImage(path: String, reason: String)
    case outputExists(String)
    /// Another writer put a file at the output while this export ran.
    case outputTaken(String)
    case outputIsFolder(path: String, format: OutputFormat)
    case outputIsInput(String)
    /// `-o -` (standard output) with a format other than framemd5 and yuv.
    case standardOutput(format: OutputFormat)
    case workBudget(frames: Int, width: Int, height: Int, limit: Int)
    case framesInMP4
    case framePastEnd(selection: FrameSelection, frameCount: Int)
    case oddSize(width: Int, height: Int, format: OutputFormat)
    /// A transparent background asked of an output that has no alpha.
    case noAlpha(format: OutputFormat)
    /// An encoder this build of FFmpeg lacks.
    case missingEncoder(name: String, format: OutputFormat)
    /// What the job's target platform refuses (too long, too short, the wrong shape).
    case target(String)
    case cancelled
    /// A chunk that cannot be rendered or joined (missing, of another job, encoded otherwise).
    case chunk(String)
    /// The soundtrack cannot be used: no such file, no audio in it, nothing decodable, or
    /// `start` past its end.
    case audio(path: String, reason: String)
    /// A clip Segue does not take: no video stream, no decoder for it, HDR.
    case unsupportedClip(path: String, reason: String)
    /// A clip that cannot be read whole: the message says at which time it broke.
    case damagedClip(path: String, reason: String)
    /// A clip over the decode limits: its picture size, or the decoding work it asks for.
    case clipTooLarge(path: String, reason: String)
    /// A clip in a video whose transition builds screens of its own from stills.
    case clipInWholeStoryTransition(path: String, transition: String, joining: [String])
    /// A text overlay that Pango or Cairo could not draw, or a font file fontconfig cannot add.
    case text(what: String, reason: String)

    /// True for errors in what was asked (exit code 2), false for failures while doing it (1).
    public var isUsageError: Bool {
        switch self {
        case .unreadableImage, .encoder, .output, .cancelled, .damagedClip, .text: return false
        default: return true
        }
    }

    public var description: String {
        switch self {
        case let .unreadableImage(path, reason): return "\(path): cannot read the image: \(reason)"
        case let .audio(path, reason): return "\(path): cannot use it as the soundtrack: \(reason)"
        case let .unsupportedClip(path, reason): return "\(path): not a video clip Segue can play: \(reason)"
        case let .damagedClip(path, reason): return "\(path): cannot read the clip: \(reason)"
        case let .clipTooLarge(path, reason): return "\(path): the clip is over the decode limits: \(reason)"
        case let .clipInWholeStoryTransition(path, transition, joining):
            return "\(path): is a video clip, and '\(transition)' builds screens of its own from still pictures; clips play with transitions that join two slides (\(joining.joined(separator: ", ")))"
        case let .imageTooLarge(path, width, height, limits):
            if width > limits.maxSide || height > limits.maxSide {
                return "\(path): the image is \(width)x\(height), over the limit of \(limits.maxSide) pixels a side"
            }
            return "\(path): the image is \(width)x\(height), over the limit of \(limits.maxPixels) pixels in all (raise it with --max-image-pixels)"
        case let .encoder(path, reason): return "\(path): cannot encode the video: \(reason)"
        case let .output(path, reason): return "\(path): cannot write: \(reason)"
        case let .unknownFormat(output):
            return "cannot tell the format of '\(output)' from its name (expected .mp4, .webm, .mov, .gif, .webp, .framemd5, .yuv, .png, '-' or a folder); pass --format \(OutputFormat.allCases.map(\.rawValue).joined(separator: "|"))"
        case .noInputs: return "no input images given (expected one or more image files)"
        case let .missingInput(path): return "\(path): no such input file"
        case let .unsupportedImage(path, reason): return "\(path): not an image Segue can read (JPEG, PNG, WebP, ...): \(reason)"
        case let .outputExists(path): return "\(path): already exists; pass --force to replace it (or --resume to keep it when it is up to date)"
        case let .outputTaken(path):
            return "\(path): another writer created it while this export ran; it was left as it is (pass --force to replace it)"
        case let .outputIsFolder(path, format):
            return "\(path): is a folder; \(format.rawValue) output goes to a file (PNG frames go to a folder)"
        case let .outputIsInput(path): return "\(path): is one of the inputs; an export never writes over its own input, even with --force"
        case let .standardOutput(format):
            return "-o - writes to standard output, which only framemd5 and yuv output can go to (this job's format is \(format.rawValue))"
        case let .workBudget(frames, width, height, limit):
            return "this job would compose \(frames) frames of \(width)x\(height), over the budget of \(limit) pixel-frames (about an hour of 1080x1920 at 30 fps); raise it with --max-pixel-frames"
        case .framesInMP4: return "--frames selects frames for png, framemd5, yuv and sheet output; a video (MP4, WebM, MOV, WebP) or a GIF holds every frame"
        case let .noAlpha(format):
            return "canvas.background is transparent, but \(format.rawValue) output has no alpha channel; the outputs that keep it: \(OutputFormat.alphaOutputs)"
        case let .target(message): return message
        case let .chunk(message): return message
        case let .missingEncoder(name, format):
            return "this build of FFmpeg has no \(name) encoder, which \(format.rawValue) output needs; Debian's libavcodec59 (or libavcodec-extra59) has it"
        case let .framePastEnd(selection, count):
            return "--frames \(selection): frame \(selection.maximum) is past the last frame (\(count - 1)); this video has \(count) frames"
        case let .oddSize(width, height, format):
            let what = format == .yuv ? "yuv420p output" : "\(format.rawValue.uppercased()) video (\(format == .mov ? "4:2:2" : "yuv420p"))"
            return "canvas.size \(width)x\(height): \(what) needs an even width and height; try \(width + width % 2)x\(height + height % 2)"
        case let .text(what, reason): return "\(what): cannot draw it: \(reason)"
        case .cancelled: return "cancelled; nothing was written"
        }
    }
}

/// Limits that keep a job bounded in memory and time whatever its inputs: the images it
/// decodes are checked before their pixels are allocated, the work before it starts.
public struct Limits: Equatable, Sendable {
    /// Pixels per image (width x height), about 33 megapixels, as trusted image tools allow.
    public var maxPixels: Int = 16384 * 2048
    /// Pixels per side of an image.
    public var maxSide: Int = 16384
    /// Frames x pixels a job may compose: 2 x 10^11 is about an hour of 1080x1920 at 30 fps.
    public var maxPixelFrames: Int = 200_000_000_000

    public init(maxPixels: Int = 16384 * 2048, maxSide: Int = 16384, maxPixelFrames: Int = 200_000_000_000) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.maxPixelFrames = maxPixelFrames
    }

    func check(width: Int, height: Int, path: String) throws {
        guard width <= maxSide, height <= maxSide, width * height <= maxPixels else {
            throw ExportError.imageTooLarge(path: path, width: width, height: height, limits: self)
        }
    }
}

extension Image {
    /// Decodes an image file (JPEG, PNG, WebP, ... through FFmpeg; HEIF through libheif),
    /// turned upright by its EXIF orientation (HEIF: its own rotation and mirroring),
    /// converted to sRGB from the ICC profile it embeds, in premultiplied alpha. Its conversion
    /// to RGBA runs on `threads` threads (the same pixels for any number).
    /// A picture `SharedPictures` holds (one that several jobs of a batch draw) is decoded once.
    public static func decode(path: String, limits: Limits = Limits(), threads: Int = 1) throws -> Image {
        try SharedPictures.image(path) { try decodeFile(path: path, limits: limits, threads: threads) }
    }

    static func decodeFile(path: String, limits: Limits, threads: Int) throws -> Image {
        try decodeFile(path: path, limits: limits, threads: threads, part: nil).image
    }

    /// The pixels of the upright part `part` of the image at `path` (all of it when nil),
    /// decoded as `decode(path:limits:threads:)` decodes the whole and the same there, pixel
    /// for pixel. The whole picture comes back when a part cannot be converted alone, when
    /// the part is most of it, or when a batch shares the picture (`SharedPictures`).
    static func decode(path: String, limits: Limits, threads: Int, part: PixelRegion?) throws -> SourcePixels {
        guard let part, !SharedPictures.isShared(path) else { return try SourcePixels(whole: decode(path: path, limits: limits, threads: threads)) }
        return try decodeFile(path: path, limits: limits, threads: threads, part: part)
    }

    private static func decodeFile(path: String, limits: Limits, threads: Int, part wanted: PixelRegion?) throws -> SourcePixels {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ExportError.unreadableImage(path: path, reason: "no such file")
        }
        // What the header declares is checked before anything is decoded (decompression bombs).
        if let declared = ImageHeader.size(of: path) {
            try limits.check(width: declared.width, height: declared.height, path: path)
        }
        var decoded = SegueDecodedImage()
        var error = SegueAVError()
        let status = segue_image_decode(path, Int64(limits.maxPixels), Int32(clamping: limits.maxSide), &decoded, &error)
        guard status == 0 else {
            if status == SEGUE_AV_UNSUPPORTED { throw ExportError.unsupportedImage(path: path, reason: error.text) }
            throw ExportError.unreadableImage(path: path, reason: error.text)
        }
        defer { segue_image_free(&decoded) }
        let width = Int(decoded.width), height = Int(decoded.height)
        try limits.check(width: width, height: height, path: path)
        let orientation = Orientation(rawValue: Int(decoded.orientation)) ?? .up
        let upright = orientation.swapsAxes ? (width: height, height: width) : (width: width, height: height)
        // A part is worth converting alone when it is well under the whole (a margin is converted with it).
        // `region` is converted (stored pixels), `kept` is what it is upright.
        var region = PixelRegion(x: 0, y: 0, width: width, height: height)
        var kept = PixelRegion(x: 0, y: 0, width: upright.width, height: upright.height)
        var room = 0
        if let part = wanted?.clamped(width: upright.width, height: upright.height), part.area * 4 < width * height * 3 {
            let stored = part.stored(by: orientation, width: width, height: height)
            room = Int(segue_image_part_room(&decoded, Int32(stored.x), Int32(stored.y), Int32(stored.width), Int32(stored.height)))
            if room > 0 { (region, kept) = (stored, part) }
        }
        var opaque = false
        // The converter writes straight into the image's own storage: no picture-sized copy.
        let pixels = try [UInt32](converted: region.area, room: room) { buffer in
            let written = room > 0
                ? segue_image_part_pixels(&decoded, Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height),
                                          buffer, Int32(clamping: max(1, threads)), &error)
                : segue_image_pixels(&decoded, buffer, Int32(clamping: max(1, threads)), &error)
            guard written >= 0 else { throw ExportError.unreadableImage(path: path, reason: error.text) }
            opaque = written == 1
        }
        let image = Image(width: region.width, height: region.height, pixels: pixels, isOpaque: opaque).oriented(orientation)
        return SourcePixels(image: image, region: kept, wholeWidth: upright.width, wholeHeight: upright.height)
    }
}

extension Array where Element == UInt32 {
    /// `count` pixels written by `convert` (through libswscale) into the array's storage,
    /// which has room for the bytes libswscale's vector paths write past the end
    /// (`SEGUE_RGBA_SLACK`): without it they would overwrite the allocator's own records.
    /// `room` pixels (when more than `count`) are written before only the first `count` are kept.
    init(converted count: Int, room: Int = 0, _ convert: (UnsafeMutablePointer<UInt32>) throws -> Void) rethrows {
        self = try [UInt32](unsafeUninitializedCapacity: Swift.max(count, room) + [UInt32].rgbaSlack) { buffer, initialized in
            try convert(buffer.baseAddress!)
            initialized = count
        }
    }

    /// `count` pixels written by `convert` as `init(converted:_:)` writes them, into `spare`'s
    /// storage when it has `count` pixels (its old ones are overwritten): a picture made at video
    /// rates reuses the memory of one no longer shown instead of new pages from the system.
    init(converted count: Int, reusing spare: consuming [UInt32]?, _ convert: (UnsafeMutablePointer<UInt32>) throws -> Void) rethrows {
        var given = consume spare
        guard given?.count == count, var storage = given else {
            try self.init(converted: count, convert)
            return
        }
        given = nil   // `storage` is then the only holder of memory given away
        // Storage shared with another array is copied here (as any write would), and room made.
        storage.reserveCapacity(count + [UInt32].rgbaSlack)
        precondition(storage.capacity >= count + [UInt32].rgbaSlack)
        try storage.withUnsafeMutableBufferPointer { buffer in
            precondition(buffer.count == count)
            try convert(buffer.baseAddress!)
        }
        self = storage
    }

    /// The pixels' worth of `SEGUE_RGBA_SLACK`.
    static var rgbaSlack: Int { (Int(SEGUE_RGBA_SLACK) + 3) / 4 }
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

    /// Writes the frame as a PNG file (straight alpha, as PNG stores it).
    public func writePNG(to path: String) throws {
        var error = SegueAVError()
        var scratch: [UInt32] = []
        let result = withStraightAlpha(scratch: &scratch) {
            segue_png_write(path, $0, Int32(width), Int32(height), Int32(width * 4), &error)
        }
        guard result == 0 else { throw ExportError.output(path: path, reason: error.text) }
    }
}

/// FFmpeg's log, which is process-wide: Segue leaves it alone unless asked.
public enum FFmpegLog {
    /// Routes FFmpeg's log lines to Segue instead of standard error: nothing is printed, and
    /// the last error line of a thread is added to the message of the Segue error that
    /// follows it ("Picture size 16000x16000 is invalid"). It replaces FFmpeg's log callback
    /// for the whole process, so a program that has its own should not call it; the segue
    /// command does, once, at start.
    public static func capture() { segue_capture_ffmpeg_log() }
}

extension SegueAVError {
    /// The message as Swift text.
    var text: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}

/// The MD5 digest of some bytes, in lowercase hex, as FFmpeg's framemd5 prints it.
func md5Hex(_ bytes: UnsafeRawBufferPointer) -> String {
    var digest = [UInt8](repeating: 0, count: 16)
    segue_md5(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &digest)
    return digest.map { String(format: "%02x", $0) }.joined()
}
