import Foundation
import Testing
@testable import Segue

@Suite("Parts of pictures: only the pixels drawn are converted, each the one the whole picture has")
struct ImagePartTests {
    /// A 256x160 picture with fine detail in every channel (FFmpeg's testsrc2 and noise),
    /// saved by FFmpeg with `format`.
    func detailed(_ name: String, _ format: [String], size: String = "256x160") throws -> String {
        let path = temporaryFolder().appendingPathComponent(name).path
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x200:d=1", "-vf", "noise=alls=40:allf=u,scale=\(size.replacingOccurrences(of: "x", with: ":"))",
                    "-frames:v", "1"] + format + [path])
        return path
    }

    /// The JPEG at `path` with an EXIF block saying `orientation`.
    func tagged(_ path: String, orientation: UInt8) throws -> String {
        var bytes = try ColorFixtures.read(path)
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        bytes.insert(contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload, at: 2)
        let out = path.replacingOccurrences(of: ".jpg", with: "-o\(orientation).jpg")
        try ColorFixtures.write(bytes, out)
        return out
    }

    /// Parts at the corners, the edges and inside, odd and even, small and large.
    func parts(width: Int, height: Int) -> [PixelRegion] {
        [PixelRegion(x: 0, y: 0, width: 37, height: 21), PixelRegion(x: 1, y: 3, width: width / 3, height: height - 3),
         PixelRegion(x: width / 3 + 1, y: 0, width: width / 3, height: height), PixelRegion(x: width - 51, y: height - 17, width: 51, height: 17),
         PixelRegion(x: 17, y: 19, width: 5, height: 3), PixelRegion(x: width / 2 - 1, y: height / 2 - 1, width: 2, height: 2)]
    }

    /// Every pixel of `part` as the whole picture has it, or a description of the first that is not.
    func mismatch(_ part: SourcePixels, _ whole: Image) -> String? {
        for y in 0..<part.region.height {
            for x in 0..<part.region.width where part.image[x, y] != whole[part.region.x + x, part.region.y + y] {
                return "(\(x), \(y)) of \(part.region): \(String(part.image[x, y], radix: 16)) against \(String(whole[part.region.x + x, part.region.y + y], radix: 16))"
            }
        }
        return nil
    }

    @Test("a part of a JPEG (4:2:0, 4:2:2, 4:4:4, grey), PNG or WebP holds the whole picture's pixels there, on one thread or several",
          arguments: [("a420.jpg", ["-pix_fmt", "yuvj420p"]), ("a422.jpg", ["-pix_fmt", "yuvj422p"]), ("a444.jpg", ["-pix_fmt", "yuvj444p"]),
                      ("grey.jpg", ["-pix_fmt", "gray"]), ("rgb.png", ["-pix_fmt", "rgb24"]), ("alpha.png", ["-pix_fmt", "rgba64be"]),
                      ("lossy.webp", ["-pix_fmt", "yuv420p"])])
    func partsMatchTheWhole(name: String, format: [String]) throws {
        let path = try detailed(name, format)
        let whole = try Image.decode(path: path)
        for part in parts(width: whole.width, height: whole.height) {
            for threads in [1, 3] {
                let pixels = try Image.decode(path: path, limits: Limits(), threads: threads, part: part)
                #expect(pixels.wholeWidth == whole.width && pixels.wholeHeight == whole.height)
                #expect(pixels.region.contains(part), "\(name): \(pixels.region) does not hold \(part)")
                #expect(!pixels.isWhole, "\(name): \(part) was converted whole")
                #expect(mismatch(pixels, whole) == nil, "\(name), \(threads) threads: \(mismatch(pixels, whole) ?? "")")
            }
        }
    }

    @Test("a part of a photo turned by any EXIF orientation, or with an ICC profile, holds the upright picture's pixels there")
    func orientedAndProfiled() throws {
        let plain = try detailed("photo.jpg", ["-pix_fmt", "yuvj420p"], size: "320x200")
        var files = try (1...8).map { try tagged(plain, orientation: UInt8($0)) }
        let profiled = plain.replacingOccurrences(of: ".jpg", with: "-adobe.jpg")
        try ColorFixtures.write(ColorFixtures.jpeg(ColorFixtures.read(plain), embedding: ColorFixtures.read(ColorFixtures.adobeRGB)), profiled)
        files.append(profiled)
        for path in files {
            let whole = try Image.decode(path: path)
            for part in parts(width: whole.width, height: whole.height) {
                let pixels = try Image.decode(path: path, limits: Limits(), threads: 2, part: part)
                #expect(pixels.wholeWidth == whole.width && pixels.wholeHeight == whole.height && pixels.region.contains(part) && !pixels.isWhole)
                #expect(mismatch(pixels, whole) == nil, "\(path): \(mismatch(pixels, whole) ?? "")")
            }
        }
        #expect(try Image.decode(path: profiled)[40, 40] != Image.decode(path: plain)[40, 40], "the profile changed nothing")
    }

    @Test("a picture whose chroma does not divide its size, or a part that is most of it, is converted whole")
    func wholeWhenAPartCannotBeExact() throws {
        let odd = try detailed("odd.jpg", ["-pix_fmt", "yuvj420p"], size: "255x161")
        let pixels = try Image.decode(path: odd, limits: Limits(), threads: 1, part: PixelRegion(x: 10, y: 10, width: 20, height: 20))
        #expect(try pixels.isWhole && pixels.image.pixels == Image.decode(path: odd).pixels)
        let even = try detailed("even.jpg", ["-pix_fmt", "yuvj420p"])
        #expect(try Image.decode(path: even, limits: Limits(), threads: 1, part: PixelRegion(x: 0, y: 0, width: 250, height: 150)).isWhole)
    }

    /// The pixels of `region` of `image`, copied.
    func copy(_ region: PixelRegion, of image: Image) -> SourcePixels {
        let pixels = (region.y..<region.maxY).flatMap { y in (region.x..<region.maxX).map { x in image[x, y] } }
        return SourcePixels(image: Image(width: region.width, height: region.height, pixels: pixels), region: region,
                            wholeWidth: image.width, wholeHeight: image.height)
    }

    @Test("resampling a part gives the pixels resampling the whole picture gives, for crops at any place, size and scale")
    func resampledPartsMatch() {
        var generator = SystemRandomNumberGenerator()
        let whole = Image(width: 300, height: 200, pixels: (0..<60_000).map { _ in UInt32.random(in: 0...0x00FF_FFFF, using: &generator) | 0xFF00_0000 })
        let crops = [Rect(x: 0, y: 0, width: 300, height: 200), Rect(x: 100.25, y: 0, width: 112.5, height: 200),
                     Rect(x: 7.7, y: 13.1, width: 40.3, height: 90.9), Rect(x: 250, y: 150, width: 50, height: 50)]
        for crop in crops {
            let region = PixelRegion.read(by: crop, width: 300, height: 200)!
            let part = copy(region, of: whole)
            for (width, height) in [(33, 71), (90, 160), (301, 403)] {
                let expected = whole.resampled(from: crop, width: width, height: height)
                #expect(part.resampled(from: crop, width: width, height: height, threads: 2).pixels == expected.pixels, "\(crop) at \(width)x\(height)")
            }
        }
    }

    @Test("the cache decodes a source once as the part its planned pictures read, and again, grown, for a picture not planned")
    func cacheDecodesPlannedParts() throws {
        let whole = Image(width: 400, height: 300, pixels: (0..<120_000).map { UInt32($0 * 2_654_435_761 & 0xFF_FFFF) | 0xFF00_0000 })
        let asked = Locked<[PixelRegion?]>([])
        let cache = PictureCache(loadPart: { _, part, _ in
            asked.withLock { $0.append(part) }
            return part.map { copy($0, of: whole) } ?? SourcePixels(whole: whole)
        })
        let left = PictureKey(source: .still(0), crop: Rect(x: 10, y: 0, width: 120, height: 300), width: 90, height: 160)
        let middle = PictureKey(source: .still(0), crop: Rect(x: 100.5, y: 20, width: 80, height: 200), width: 120, height: 300)
        let right = PictureKey(source: .still(0), crop: Rect(x: 300, y: 0, width: 100, height: 100), width: 50, height: 50)
        cache.plan(reading: [.still(0): [left, middle]]) { _ in whole.size }
        for key in [left, middle, left, right, middle] {
            #expect(try cache.image(key).pixels == whole.resampled(from: key.crop, width: key.width, height: key.height).pixels)
        }
        #expect(asked.withLock { $0 } == [PixelRegion(x: 10, y: 0, width: 171, height: 300), PixelRegion(x: 10, y: 0, width: 390, height: 300)])
    }
}
