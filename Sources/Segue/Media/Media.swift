import CSegueAV
import Foundation

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
