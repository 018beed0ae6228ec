import CSegueAV
import Foundation

/// The pixel size a JPEG, PNG, WebP or HEIF file declares in its header, read without
/// decoding, so that a decompression bomb is refused before any of its pixels are allocated.
enum ImageHeader {
    /// Width and height, or nil when the file is none of those formats or its header is cut.
    static func size(of path: String) -> (width: Int, height: Int)? {
        guard Paths.notRegular(path) == nil, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: 1 << 16)) ?? Data())
        return png(bytes) ?? jpeg(bytes) ?? webp(bytes) ?? heif(path)
    }

    /// A HEIF file's primary picture, from its boxes (libheif reads them, decoding nothing).
    static func heif(_ path: String) -> (width: Int, height: Int)? {
        var width: Int32 = 0, height: Int32 = 0
        guard segue_heif_size(path, &width, &height) == 0 else { return nil }
        return (Int(width), Int(height))
    }

    private static func big(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        return b[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func little(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        return b[at..<at + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    static func png(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), b.count >= 24,
              Array(b[12..<16]) == Array("IHDR".utf8), let w = big(b, 16, 4), let h = big(b, 20, 4) else { return nil }
        return (w, h)
    }

    static func jpeg(_ b: [UInt8]) -> (width: Int, height: Int)? {
        jpegFrame(b).map { ($0.width, $0.height) }
    }

    /// A JPEG's size as decoded and turned upright: its frame's size, width and height
    /// swapped when its EXIF orientation (the last Exif APP1 before the frame, as FFmpeg
    /// reads it) turns it a quarter. Nil for other formats, or when anything is unclear.
    static func uprightJPEGSize(of path: String) -> (width: Int, height: Int)? {
        guard Paths.notRegular(path) == nil, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let b = [UInt8]((try? handle.read(upToCount: 1 << 17)) ?? Data())
        guard let frame = jpegFrame(b), let orientation = frame.orientation, frame.width > 0, frame.height > 0 else { return nil }
        return (5...8).contains(orientation) ? (frame.height, frame.width) : (frame.width, frame.height)
    }

    /// Walks a JPEG's segments to its frame header: the size it declares, and the
    /// orientation of the Exif blocks before it (nil when one of them cannot be read).
    private static func jpegFrame(_ b: [UInt8]) -> (width: Int, height: Int, orientation: Int?)? {
        guard b.starts(with: [0xFF, 0xD8]) else { return nil }
        var orientation: Int? = 1
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            guard let length = big(b, i + 2, 2), length >= 2 else { return nil }
            if marker == 0xE1, length >= 8, i + 2 + length <= b.count, Array(b[(i + 4)..<(i + 10)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                orientation = orientation == nil ? nil : exifOrientation(Array(b[(i + 10)..<(i + 2 + length)]))
            }
            // Start of frame (baseline, progressive, lossless, ...): not DHT, JPG or DAC.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let h = big(b, i + 5, 2), let w = big(b, i + 7, 2) else { return nil }
                return (w, h, orientation)
            }
            i += 2 + length
        }
        return nil
    }

    /// The Orientation tag (0x0112) of a TIFF structure's first directory: 1 when absent or
    /// out of 1...8 (as the decoder takes it); nil when the structure cannot be read.
    private static func exifOrientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8 else { return nil }
        let read: ([UInt8], Int, Int) -> Int?
        if t.starts(with: [0x49, 0x49, 0x2A, 0x00]) { read = little } else if t.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { read = big } else { return nil }
        guard let directory = read(t, 4, 4), let count = read(t, directory, 2) else { return nil }
        for entry in 0..<count {
            let at = directory + 2 + 12 * entry
            guard let tag = read(t, at, 2) else { return nil }
            guard tag == 0x0112 else { continue }
            guard read(t, at + 2, 2) == 3, let value = read(t, at + 8, 2) else { return nil }
            return (1...8).contains(value) ? value : 1
        }
        return 1
    }

    static func webp(_ b: [UInt8]) -> (width: Int, height: Int)? {
        guard b.count >= 30, Array(b[0..<4]) == Array("RIFF".utf8), Array(b[8..<12]) == Array("WEBP".utf8) else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8X":
            guard let w = little(b, 24, 3), let h = little(b, 27, 3) else { return nil }
            return (w + 1, h + 1)
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A, let w = little(b, 26, 2), let h = little(b, 28, 2) else { return nil }
            return (w & 0x3FFF, h & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F, let bits = little(b, 21, 4) else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        default:
            return nil
        }
    }
}
