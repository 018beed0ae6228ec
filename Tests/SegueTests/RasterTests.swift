import Foundation
import Testing
@testable import Segue

@Suite("Images: decoding, orientation, resampling")
struct RasterTests {
    @Test("JPEG, PNG and WebP decode to their sizes", arguments: [("a.jpg", 720, 1280), ("b.png", 960, 720), ("c.webp", 720, 1280)])
    func decode(file: String, width: Int, height: Int) throws {
        let image = try Image.decode(path: example(file))
        #expect(image.width == width && image.height == height && image.isOpaque)
    }

    @Test("headers declare the sizes the decoder finds", arguments: [("a.jpg", 720, 1280), ("b.png", 960, 720), ("c.webp", 720, 1280)])
    func headers(file: String, width: Int, height: Int) throws {
        let size = try #require(ImageHeader.size(of: example(file)))
        #expect(size.width == width && size.height == height)
    }

    @Test("decoding is the same every time")
    func decodeIsStable() throws {
        #expect(try Image.decode(path: example("a.jpg")).pixels == Image.decode(path: example("a.jpg")).pixels)
    }

    @Test("converting a decoded picture on several threads gives the same pixels as on one: JPEG 4:2:0, 4:4:4, grey, odd sizes, PNG, WebP")
    func decodeOnThreads() throws {
        let folder = temporaryFolder()
        var paths = [example("a.jpg"), example("b.png"), example("c.webp")]
        // Odd sizes, each chroma layout a JPEG may have, 16-bit PNG with alpha: made by FFmpeg.
        let made: [(String, [String])] = [("odd420.jpg", ["-pix_fmt", "yuvj420p"]), ("odd444.jpg", ["-pix_fmt", "yuvj444p"]),
                                          ("odd422.jpg", ["-pix_fmt", "yuvj422p"]), ("grey.jpg", ["-pix_fmt", "gray"]),
                                          ("deep.png", ["-pix_fmt", "rgba64be"])]
        for (name, format) in made {
            let path = folder.appendingPathComponent(name).path
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=333x197:d=1", "-frames:v", "1"] + format + [path])
            paths.append(path)
        }
        for path in paths {
            let one = try Image.decode(path: path, threads: 1)
            for threads in [2, 3, 8] {
                let many = try Image.decode(path: path, threads: threads)
                #expect(many.width == one.width && many.height == one.height && many.pixels == one.pixels && many.isOpaque == one.isOpaque,
                        "\(path), \(threads) threads")
            }
        }
    }

    @Test("a missing or damaged file is an error that names it")
    func badFiles() throws {
        let folder = temporaryFolder()
        let missing = folder.appendingPathComponent("missing.jpg").path
        #expect(throws: ExportError.unreadableImage(path: missing, reason: "no such file")) { try Image.decode(path: missing) }

        let text = folder.appendingPathComponent("notes.jpg").path
        try "just text".write(toFile: text, atomically: true, encoding: .utf8)
        let error = #expect(throws: ExportError.self) { try Image.decode(path: text) }
        #expect(error == .unsupportedImage(path: text, reason: "its content is no image format FFmpeg knows, whatever its name says"))

        let truncated = folder.appendingPathComponent("half.png").path
        let data = try Data(contentsOf: URL(fileURLWithPath: example("b.png")))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: truncated))
        #expect(throws: ExportError.self) { try Image.decode(path: truncated) }
    }

    @Test("a picture over the pixel limit is refused")
    func pixelLimit() {
        let error = #expect(throws: ExportError.self) { try Image.decode(path: example("b.png"), limits: Limits(maxPixels: 1000)) }
        #expect(error?.description.contains("b.png") == true)
    }

    @Test("EXIF orientation 6 (stored turned left) is turned upright")
    func exifOrientation() throws {
        // A JPEG whose left half is white and right half black, tagged orientation 6: upright,
        // the picture is taller than wide, with white on top.
        let folder = temporaryFolder()
        let plain = folder.appendingPathComponent("plain.png").path
        let frame = FrameBuffer(width: 64, height: 32)
        for y in 0..<32 { for x in 0..<64 { frame.pixels[y * 64 + x] = x < 32 ? 0xFFFF_FFFF : 0xFF00_0000 } }
        try frame.writePNG(to: plain)
        let jpeg = folder.appendingPathComponent("plain.jpg").path
        try ffmpeg(["-i", plain, "-q:v", "2", jpeg])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        // APP1 "Exif", big-endian TIFF, one IFD entry: 0x0112 SHORT 1 = 6.
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        bytes.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        let tagged = folder.appendingPathComponent("tagged.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: tagged))

        let image = try Image.decode(path: tagged)
        #expect(image.width == 32 && image.height == 64)
        #expect(red(image[16, 8]) > 200 && red(image[16, 56]) < 50)
    }

    @Test("a JPEG's upright size read from its header agrees with the decoded picture's, for every orientation and byte order")
    func uprightSizeFromHeader() throws {
        let folder = temporaryFolder()
        let plain = folder.appendingPathComponent("plain.png").path
        try FrameBuffer(width: 48, height: 16).writePNG(to: plain)
        let jpeg = folder.appendingPathComponent("plain.jpg").path
        try ffmpeg(["-i", plain, jpeg])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        #expect(ImageHeader.uprightJPEGSize(of: jpeg)! == (48, 16))
        func tagged(_ tiff: [UInt8], _ name: String) throws -> String {
            let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
            let length = payload.count + 2
            var out = bytes
            out.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
            let path = folder.appendingPathComponent(name).path
            try Data(out).write(to: URL(fileURLWithPath: path))
            return path
        }
        for orientation: UInt8 in [1, 2, 3, 4, 5, 6, 7, 8, 0, 9] {
            // Two entries, the orientation second; big- and little-endian TIFF.
            let big: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 2, 0x01, 0x0F, 0, 2, 0, 0, 0, 1, 0x41, 0, 0, 0,
                                0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
            let little: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 2, 0, 0x0F, 0x01, 2, 0, 1, 0, 0, 0, 0x41, 0, 0, 0,
                                   0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0, 0, 0, 0, 0]
            for (tiff, order) in [(big, "mm"), (little, "ii")] {
                let path = try tagged(tiff, "o\(orientation)\(order).jpg")
                let decoded = try Image.decode(path: path)
                let told = try #require(ImageHeader.uprightJPEGSize(of: path), "orientation \(orientation) \(order)")
                #expect(told.width == decoded.width && told.height == decoded.height, "orientation \(orientation) \(order): \(told) vs \(decoded.size)")
            }
        }
        // An Exif block that cannot be read: unclear, so nil (the picture is decoded up front).
        #expect(ImageHeader.uprightJPEGSize(of: try tagged([0x4D, 0x4D, 0, 0x2A, 0, 0, 0x7F, 0], "bad.jpg")) == nil)
        #expect(ImageHeader.uprightJPEGSize(of: plain) == nil)
    }

    @Test("all eight orientations put the stored top-left pixel where EXIF says")
    func orientations() {
        let image = makeImage(width: 3, height: 2) { x, y in (UInt8(x), UInt8(y), 0) }
        // Where stored (0, 0) lands upright, per orientation 1...8.
        let expected = [(0, 0), (2, 0), (2, 1), (0, 1), (0, 0), (1, 0), (1, 2), (0, 2)]
        for (orientation, spot) in zip(Orientation.allCases, expected) {
            let turned = image.oriented(orientation)
            #expect(turned.width == (orientation.swapsAxes ? 2 : 3))
            let p = turned[spot.0, spot.1]
            #expect(red(p) == 0 && green(p) == 0, "orientation \(orientation.rawValue)")
        }
    }

    @Test("turning a picture upright by EXIF orientation moves every pixel where the orientation says, at sizes across tiles")
    func turn() {
        let width = 70, height = 37   // past one 32-pixel tile, not a multiple of it
        let stored = Image(width: width, height: height, pixels: (0..<(width * height)).map { UInt32($0) | 0xFF00_0000 }, isOpaque: true)
        for orientation in Orientation.allCases {
            let upright = stored.oriented(orientation)
            #expect(upright.width == (orientation.swapsAxes ? height : width) && upright.height == (orientation.swapsAxes ? width : height))
            var wrong = 0
            for y in 0..<upright.height {
                for x in 0..<upright.width {
                    let s = orientation.source(x: x, y: y, width: width, height: height)
                    if upright[x, y] != stored[s.x, s.y] { wrong += 1 }
                }
            }
            #expect(wrong == 0, "orientation \(orientation.rawValue): \(wrong) pixels misplaced")
        }
    }

    @Test("resampling keeps a flat color exactly flat")
    func flatStaysFlat() {
        let image = Image(width: 37, height: 23, color: Color(red: 0.2, green: 0.6, blue: 0.9))
        let out = image.resampled(from: Rect(x: 3.5, y: 1, width: 30, height: 20), width: 11, height: 50)
        #expect(Set(out.pixels) == [image.pixels[0]])
    }

    @Test("resampling gives exactly the single-precision sums written out one pixel at a time: shrinking, enlarging, crops, alpha, odd sizes",
          arguments: [(97, 61, Rect(x: 0, y: 0, width: 97, height: 61), 37, 23),          // shrink both ways
                      (97, 61, Rect(x: 3.25, y: 5.5, width: 40.5, height: 30), 121, 90),   // enlarge a crop
                      (64, 300, Rect(x: 10, y: 0, width: 44, height: 300), 19, 17),        // tall, shrink 17x: long windows
                      (33, 9, Rect(x: 0, y: 0, width: 33, height: 9), 50, 5),              // one way each
                      (17, 17, Rect(x: 0.5, y: 0.5, width: 16, height: 16), 1, 1)])
    func resampleMatchesReference(width: Int, height: Int, crop: Rect, outWidth: Int, outHeight: Int) {
        var seed: UInt64 = 0x2545F4914F6CDD1D &+ UInt64(width * 1000 + outWidth)
        let pixels = (0..<(width * height)).map { _ -> UInt32 in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let bits = UInt32(truncatingIfNeeded: seed >> 24)
            let alpha = bits >> 24 < 64 ? 255 : bits >> 24   // mostly translucent, a quarter opaque
            func channel(_ shift: UInt32) -> UInt32 { (bits >> shift & 0xFF) * alpha / 255 }
            return channel(0) | channel(8) << 8 | channel(16) << 16 | alpha << 24
        }
        let image = Image(width: width, height: height, pixels: pixels)
        let out = image.resampled(from: crop, width: outWidth, height: outHeight)
        let expected = referenceResample(image, crop: crop, width: outWidth, height: outHeight)
        let differing = (0..<min(out.pixels.count, expected.count)).filter { out.pixels[$0] != expected[$0] }
        #expect(out.pixels.count == expected.count && differing.isEmpty,
                "\(differing.count) pixels differ, the first at index \(differing.first ?? -1)")
    }

    /// Lanczos resampling as `Image.resampled` defines it, one pixel and one tap at a time:
    /// each sum from 0 in the taps' order, every product and sum rounded to Float.
    func referenceResample(_ image: Image, crop: Rect, width: Int, height: Int) -> [UInt32] {
        let horizontal = FilterTaps(inputCount: image.width, from: crop.minX, length: crop.width, outputCount: width)
        let vertical = FilterTaps(inputCount: image.height, from: crop.minY, length: crop.height, outputCount: height)
        func unpack(_ p: UInt32) -> [Float] { [Float(p & 0xFF), Float(p >> 8 & 0xFF), Float(p >> 16 & 0xFF), Float(p >> 24)] }
        var middle = [[Float]](repeating: [], count: image.height * width)
        for row in 0..<image.height {
            for x in 0..<width {
                var sum: [Float] = [0, 0, 0, 0]
                for k in 0..<horizontal.counts[x] {
                    let w = horizontal.weights[horizontal.offsets[x] + k]
                    let texel = unpack(image.pixels[row * image.width + horizontal.starts[x] + k])
                    for c in 0..<4 { sum[c] = sum[c] + w * texel[c] }
                }
                middle[row * width + x] = sum
            }
        }
        var out: [UInt32] = []
        for y in 0..<height {
            for x in 0..<width {
                var sum: [Float] = [0, 0, 0, 0]
                for k in 0..<vertical.counts[y] {
                    let w = vertical.weights[vertical.offsets[y] + k]
                    let value = middle[(vertical.starts[y] + k) * width + x]
                    for c in 0..<4 { sum[c] = sum[c] + w * value[c] }
                }
                let levels = sum.map { Int32($0 + 0.5) }   // toward zero
                let alpha = min(max(levels[3], 0), 255)
                let rgb = levels[0..<3].map { UInt32(min(max($0, 0), alpha)) }
                out.append(rgb[0] | rgb[1] << 8 | rgb[2] << 16 | UInt32(alpha) << 24)
            }
        }
        return out
    }

    @Test("resampling with the rows cut among threads gives the same pixels and the same opacity")
    func resampleInParts() {
        let opaque = makeImage(width: 300, height: 200) { x, y in (UInt8(x % 256), UInt8((x * y) % 251), UInt8(y)) }
        // Translucent: alpha falls off to the right (premultiplied).
        let translucent = Image(width: 300, height: 200, pixels: (0..<(300 * 200)).map { i in
            let a = UInt32(255 - (i % 300) * 255 / 299), c = a / 2
            return c | c << 8 | c << 16 | a << 24
        })
        for image in [opaque, translucent] {
            for (crop, w, h) in [(Rect(x: 10.5, y: 3.25, width: 150, height: 190), 270, 480), (Rect(x: 0, y: 0, width: 300, height: 200), 97, 131)] {
                let one = image.resampled(from: crop, width: w, height: h)
                for threads in [2, 3, 8] {
                    let parts = image.resampled(from: crop, width: w, height: h, threads: threads)
                    #expect(parts.pixels == one.pixels, "\(threads) threads, \(w)x\(h)")
                    #expect(parts.isOpaque == one.isOpaque && parts.isOpaque == image.isOpaque)
                }
                #expect(one.isOpaque == one.pixels.allSatisfy { $0 >> 24 == 0xFF })
            }
        }
    }

    @Test("shrinking averages: a fine checkerboard becomes even gray, not aliased stripes")
    func shrinkAverages() {
        let image = makeImage(width: 64, height: 64) { x, y in (x + y) % 2 == 0 ? (255, 255, 255) : (0, 0, 0) }
        let out = image.resampled(from: Rect(x: 0, y: 0, width: 64, height: 64), width: 8, height: 8)
        for p in out.pixels { #expect(abs(red(p) - 128) <= 3) }
    }
}

@Suite("RGBA to yuv420p")
struct YUVConversionTests {
    @Test("the conversion gives BT.709 limited range of each pixel and 2x2 block within rounding, across a whole row")
    func matchesFormula() {
        let width = 54, height = 6
        let frame = FrameBuffer(width: width, height: height)
        var seed: UInt64 = 0x9E3779B97F4A7C15
        for i in 0..<(width * height) {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            frame.pixels[i] = UInt32(truncatingIfNeeded: seed >> 32) | 0xFF00_0000
        }
        var y = [UInt8](repeating: 0, count: width * height), u = [UInt8](repeating: 0, count: width * height / 4)
        var v = u
        y.withUnsafeMutableBufferPointer { yp in
            u.withUnsafeMutableBufferPointer { up in
                v.withUnsafeMutableBufferPointer { vp in
                    frame.convert(rows: 0..<height, to: YUVPlanes(y: yp.baseAddress!, yStride: width, u: up.baseAddress!, uStride: width / 2,
                                                v: vp.baseAddress!, vStride: width / 2))
                }
            }
        }
        func channels(_ p: UInt32) -> (Double, Double, Double) { (Double(p & 0xFF), Double((p >> 8) & 0xFF), Double((p >> 16) & 0xFF)) }
        var worst = 0.0
        for row in 0..<height {
            for x in 0..<width {
                let (r, g, b) = channels(frame[x, row])
                let exact = 16 + (0.2126 * r + 0.7152 * g + 0.0722 * b) * 219 / 255
                worst = max(worst, abs(Double(y[row * width + x]) - exact))
            }
        }
        for row in 0..<(height / 2) {
            for x in 0..<(width / 2) {
                var (r, g, b) = (0.0, 0.0, 0.0)
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let c = channels(frame[2 * x + dx, 2 * row + dy])
                    r += c.0 / 4; g += c.1 / 4; b += c.2 / 4
                }
                let cb = 128 + (-0.1146 * r - 0.3854 * g + 0.5 * b) * 224 / 255
                let cr = 128 + (0.5 * r - 0.4542 * g - 0.0458 * b) * 224 / 255
                worst = max(worst, abs(Double(u[row * width / 2 + x]) - cb), abs(Double(v[row * width / 2 + x]) - cr))
            }
        }
        // Rounded from 16 fractional bits: within half a step and the coefficients' rounding.
        #expect(worst <= 0.52, "largest difference from BT.709 \(worst)")
    }
}

@Suite("Masks drawn by spans")
struct MaskSpanTests {
    @Test("an upright mask's inside columns have coverage 1, those outside what it touches 0, and few lie between")
    func columnsAgreeWithCoverage() throws {
        // A rounded rectangle of either curve, a circle (iris), scaled unevenly and moved.
        let shapes = CornerCurve.allCases.map {
            RoundedRect(rect: Rect(x: 10, y: 20, width: 100, height: 150), cornerRadius: 18, cornerCurve: $0)
        } + [RoundedRect(rect: Rect(x: 30, y: 40, width: 120, height: 120), cornerRadius: 60, cornerCurve: .circular)]
        let maps = [Homography(mapping: Rect(x: 0, y: 0, width: 200, height: 200), to: Rect(x: 7.3, y: -4.1, width: 340, height: 340)),
                    Homography(mapping: Rect(x: 0, y: 0, width: 200, height: 200), to: Rect(x: 3.9, y: 1.7, width: 410, height: 250))]
        for shape in shapes {
            for canvas in maps {
                let mask = try #require(ShapeMask(shape, canvas: canvas))
                var inside = 0, between = 0, covered = 0.0
                for y in -2..<420 {
                    let columns = try #require(mask.columns(row: y))
                    for x in -2..<420 {
                        let coverage = mask.coverage(x: x, y: y)
                        covered += coverage
                        if columns.inside.contains(x) {
                            inside += 1
                            #expect(coverage == 1, "\(shape.cornerCurve) r\(shape.cornerRadius): (\(x), \(y)) is said inside, covers \(coverage)")
                        } else if columns.touched.contains(x) {
                            between += 1
                        } else {
                            #expect(coverage == 0, "\(shape.cornerCurve) r\(shape.cornerRadius): (\(x), \(y)) is said untouched, covers \(coverage)")
                        }
                    }
                }
                // Masked one by one: only a band of about two pixels along the outline.
                let outline = 2 * (shape.rect.width * canvas.m11 + shape.rect.height * canvas.m22)
                #expect(Double(between) < 3 * outline, "\(between) pixels masked one by one along an outline of \(outline)")
                #expect(Double(inside) > covered - 2 * outline, "\(inside) pixels drawn unmasked of \(covered) covered")
            }
        }
    }

    @Test("beside a corner, just outside the side's line, a mask covers nothing: no faint line past the curve")
    func noLinePastCorners() {
        let circle = RoundedRect(rect: Rect(x: 30, y: 40, width: 120, height: 120), cornerRadius: 60, cornerCurve: .circular)
        // 0.1 above the top side's line, 5 in from the left: the circle is 35 lower there.
        #expect(circle.signedDistance(Point(x: 35, y: 39.9)) < -20)
        #expect(circle.signedDistance(Point(x: 29.9, y: 45)) < -20)
        let card = RoundedRect(rect: Rect(x: 0, y: 0, width: 100, height: 150), cornerRadius: 18, cornerCurve: .continuous)
        #expect(card.signedDistance(Point(x: 2, y: -0.2)) < -5)
        // Past the corners the side's own line is the outline.
        #expect(abs(card.signedDistance(Point(x: 50, y: -0.2)) + 0.2) < 1e-9)
    }

    @Test("a turned mask claims no columns: its pixels are all masked one by one")
    func turnedMask() throws {
        let shape = RoundedRect(rect: Rect(x: 0, y: 0, width: 50, height: 50), cornerRadius: 5)
        let turned = Homography(Transform3D.identity.rotated(by: 0.3, x: 0, y: 0, z: 1))
        let mask = try #require(ShapeMask(shape, canvas: turned))
        #expect((0..<60).allSatisfy { mask.columns(row: $0) == nil })
    }
}

@Suite("Bands a polygon paints wholly")
struct CoverTests {
    func polygon(_ corners: [(Double, Double)]) -> PreparedPolygon {
        PreparedPolygon(corners: corners.map { Point(x: $0.0, y: $0.1) }, opacity: 1, canvasHeight: 100)!
    }

    @Test("a polygon covers a band only when every pixel of it lies wholly inside")
    func covers() {
        let canvas = polygon([(0, 0), (80, 0), (80, 100), (0, 100)])
        #expect(canvas.covers(rows: 0..<16, width: 80) && canvas.covers(rows: 96..<100, width: 80))
        // Half a pixel short on the right: its last column is partly covered.
        let short = polygon([(0, 0), (79.5, 0), (79.5, 100), (0, 100)])
        #expect(!short.covers(rows: 0..<16, width: 80))
        // Starting mid-row: the band's first row is partly covered.
        let low = polygon([(-5, 16.5), (90, 16.5), (90, 120), (-5, 120)])
        #expect(!low.covers(rows: 16..<32, width: 80) && low.covers(rows: 32..<48, width: 80))
        // Turned a little past the canvas: rows in the middle are covered, the top's corner is not.
        let turned = polygon([(-10, -2), (90, 8), (95, 110), (-15, 100)])
        #expect(turned.covers(rows: 40..<56, width: 80) && !turned.covers(rows: 0..<16, width: 80))
    }
}
