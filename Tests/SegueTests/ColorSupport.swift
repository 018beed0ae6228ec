import CLittleCMS
import Foundation

/// Files with embedded colour profiles, made the way cameras and phones write them, and
/// LittleCMS's own conversions of pixel values to sRGB to compare with.
enum ColorFixtures {
    static let adobeRGB = "/usr/share/color/icc/colord/AdobeRGB1998.icc"
    static let proPhotoRGB = "/usr/share/color/icc/colord/ProPhotoRGB.icc"

    /// A JPEG with `profile` in APP2 ICC_PROFILE segments (one segment: profiles under 64 KB).
    static func jpeg(_ jpeg: [UInt8], embedding profile: [UInt8]) -> [UInt8] {
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let length = payload.count + 2
        precondition(length <= 0xFFFF)
        return Array(jpeg[0..<2]) + [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// A PNG with `profile` in an iCCP chunk, right after IHDR.
    static func png(_ png: [UInt8], embedding profile: [UInt8]) -> [UInt8] {
        let body = Array("ICC".utf8) + [0, 0] + zlibStored(profile)
        let type = Array("iCCP".utf8)
        let chunk = bigEndian(UInt32(body.count)) + type + body + bigEndian(crc32(type + body))
        let afterHeader = 8 + 8 + 13 + 4
        return Array(png[0..<afterHeader]) + chunk + Array(png[afterHeader...])
    }

    /// A WebP (a simple lossy or lossless one, as FFmpeg writes it) turned into the extended
    /// format with `profile` in an ICCP chunk.
    static func webp(_ webp: [UInt8], width: Int, height: Int, embedding profile: [UInt8]) -> [UInt8] {
        func little(_ v: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func chunk(_ tag: String, _ body: [UInt8]) -> [UInt8] { Array(tag.utf8) + little(body.count, 4) + body + (body.count % 2 == 1 ? [0] : []) }
        let header = chunk("VP8X", [0x20, 0, 0, 0] + little(width - 1, 3) + little(height - 1, 3))
        let body = Array("WEBP".utf8) + header + chunk("ICCP", profile) + Array(webp[12...])
        return Array("RIFF".utf8) + little(body.count, 4) + body
    }

    /// A zlib stream holding `data` in stored (uncompressed) deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let last: UInt8 = offset + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<offset + n]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + bigEndian(b << 16 | a)
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// Display P3 (DCI-P3 primaries, D65 white, the sRGB curve), as iPhones tag their photos.
    static func displayP3() -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.680, y: 0.320, Y: 1), Green: cmsCIExyY(x: 0.265, y: 0.690, Y: 1),
                                        Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        var parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = cmsBuildParametricToneCurve(nil, 4, &parameters)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        cmsSaveProfileToMem(profile, &bytes, &size)
        return bytes
    }

    /// LittleCMS's conversion of one 8-bit RGB color from `profile` to sRGB, in floating
    /// point, relative colorimetric.
    static func toSRGB(_ rgb: (Int, Int, Int), profile: [UInt8]) -> (Double, Double, Double) {
        let input = cmsOpenProfileFromMem(profile, cmsUInt32Number(profile.count))
        let output = cmsCreate_sRGBProfile()
        defer { cmsCloseProfile(input); cmsCloseProfile(output) }
        // TYPE_RGB_DBL: float channels 0...1.
        let rgbDouble: cmsUInt32Number = (4 << 16) | (1 << 22) | (3 << 3) | 0
        let transform = cmsCreateTransform(input, rgbDouble, output, rgbDouble, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)
        defer { cmsDeleteTransform(transform) }
        var source = [Double(rgb.0) / 255, Double(rgb.1) / 255, Double(rgb.2) / 255], result = [0.0, 0, 0]
        cmsDoTransform(transform, &source, &result, 1)
        return (min(max(result[0], 0), 1) * 255, min(max(result[1], 0), 1) * 255, min(max(result[2], 0), 1) * 255)
    }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
}
