import CHeif
import Foundation
import Testing
@testable import Segue

@Suite("Colour profiles and iPhone photos")
struct ColorProfileTests {
    /// A flat JPEG or PNG of `rgb` made by FFmpeg, with `profile` embedded, and the same file
    /// without it.
    func flatFile(_ ext: String, rgb: String, profile: [UInt8]) throws -> (tagged: String, plain: String) {
        let folder = temporaryFolder()
        let plain = folder.appendingPathComponent("plain.\(ext)").path
        var arguments = ["-f", "lavfi", "-i", "color=c=0x\(rgb):s=32x32", "-frames:v", "1"]
        if ext == "jpg" { arguments += ["-pix_fmt", "yuvj444p", "-q:v", "1"] }
        if ext == "webp" { arguments += ["-lossless", "1"] }
        try ffmpeg(arguments + [plain])
        let bytes = try ColorFixtures.read(plain)
        let tagged = folder.appendingPathComponent("tagged.\(ext)").path
        switch ext {
        case "jpg": try ColorFixtures.write(ColorFixtures.jpeg(bytes, embedding: profile), tagged)
        case "webp": try ColorFixtures.write(ColorFixtures.webp(bytes, width: 32, height: 32, embedding: profile), tagged)
        default: try ColorFixtures.write(ColorFixtures.png(bytes, embedding: profile), tagged)
        }
        return (tagged, plain)
    }

    func rgb(_ p: UInt32) -> (Int, Int, Int) { (red(p), green(p), blue(p)) }

    @Test("an Adobe RGB JPEG, a ProPhoto RGB PNG and an Adobe RGB WebP land within 4/255 of LittleCMS's own sRGB conversion",
          arguments: [("jpg", ColorFixtures.adobeRGB, "AD3D25"), ("png", ColorFixtures.proPhotoRGB, "6080A0"), ("png", ColorFixtures.adobeRGB, "20C040"),
                      ("webp", ColorFixtures.adobeRGB, "AD3D25")])
    func embeddedProfiles(_ ext: String, _ profilePath: String, _ color: String) throws {
        let profile = try ColorFixtures.read(profilePath)
        let files = try flatFile(ext, rgb: color, profile: profile)
        let stored = rgb(try Image.decode(path: files.plain)[16, 16])
        let managed = rgb(try Image.decode(path: files.tagged)[16, 16])
        let expected = ColorFixtures.toSRGB(stored, profile: profile)
        #expect(abs(Double(managed.0) - expected.0) <= 4 && abs(Double(managed.1) - expected.1) <= 4 && abs(Double(managed.2) - expected.2) <= 4,
                "\(stored) in \(profilePath) became \(managed); LittleCMS says \(expected)")
        #expect(managed != stored, "the profile changed nothing")
    }

    @Test("Adobe RGB (173, 61, 37) shows as a colour-managed viewer shows it, about (200, 59, 30)")
    func adobeExample() throws {
        let files = try flatFile("jpg", rgb: "AD3D25", profile: try ColorFixtures.read(ColorFixtures.adobeRGB))
        let (r, g, b) = rgb(try Image.decode(path: files.tagged)[16, 16])
        #expect(abs(r - 200) <= 2 && abs(g - 59) <= 2 && abs(b - 30) <= 2, "got (\(r), \(g), \(b))")
    }

    @Test("an iPhone-like HEIC (HEVC, rotated 90°, Display P3) renders upright and colour-managed")
    func iPhoneHEIC() throws {
        let path = temporaryFolder().appendingPathComponent("IMG_0001.HEIC").path
        let p3 = ColorFixtures.displayP3()
        // Stored as the sensor saw it: 64 x 32, the left half a saturated red, the right half grey.
        try HEIFFixture.write(path, width: 64, height: 32, orientation: heif_orientation_rotate_90_cw, profile: p3) { x, _ in
            x < 32 ? (230, 40, 30) : (128, 128, 128)
        }
        let image = try Image.decode(path: path)
        #expect(image.width == 32 && image.height == 64, "upright it is taller than wide, not \(image.width)x\(image.height)")
        // Turned 90° clockwise, the stored left half is on top.
        let stored = try HEIFFixture.storedPixel(path, x: 16, y: 16)
        let expected = ColorFixtures.toSRGB(stored, profile: p3)
        let top = rgb(image[16, 16])
        #expect(abs(Double(top.0) - expected.0) <= 4 && abs(Double(top.1) - expected.1) <= 4 && abs(Double(top.2) - expected.2) <= 4,
                "P3 \(stored) became \(top); LittleCMS says \(expected)")
        #expect(top.0 > stored.0, "Display P3 red is redder than sRGB can say: it clips to a larger red value")
        #expect(abs(red(image[16, 48]) - 128) <= 6, "the grey half is at the bottom")
    }

    @Test("a HEIC made by heif-enc from a tagged PNG keeps and applies its profile")
    func heifEnc() throws {
        let profile = try ColorFixtures.read(ColorFixtures.adobeRGB)
        let files = try flatFile("png", rgb: "AD3D25", profile: profile)
        let heic = temporaryFolder().appendingPathComponent("photo.heic").path
        try succeed("heif-enc", ["-q", "95", files.tagged, "-o", heic])
        let image = try Image.decode(path: heic)
        #expect(image.width == 32 && image.height == 32)
        let stored = try HEIFFixture.storedPixel(heic, x: 16, y: 16)
        let expected = ColorFixtures.toSRGB(stored, profile: profile)
        let got = rgb(image[16, 16])
        #expect(abs(Double(got.0) - expected.0) <= 4 && abs(Double(got.1) - expected.1) <= 4 && abs(Double(got.2) - expected.2) <= 4,
                "\(stored) became \(got); LittleCMS says \(expected)")
    }

    @Test("a HEIC over the pixel limit is refused before it is decoded")
    func heifLimits() throws {
        let path = temporaryFolder().appendingPathComponent("big.heic").path
        try HEIFFixture.write(path, width: 64, height: 64, orientation: heif_orientation_normal, profile: ColorFixtures.displayP3()) { _, _ in (1, 2, 3) }
        let error = #expect(throws: ExportError.self) { try Image.decode(path: path, limits: Limits(maxPixels: 1000)) }
        #expect(error?.description.contains("big.heic") == true && error?.description.contains("64x64") == true, "\(String(describing: error))")
    }
}
