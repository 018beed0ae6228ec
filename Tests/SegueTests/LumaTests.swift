import Foundation
import SegueTestSupport
import Testing
@testable import Segue

/// Luma wipes: the edge where the matte says, softness, invert and reverse, no banding on an
/// 8-bit matte, clip mattes that move, and Segue's own mattes.
@Suite("Luma wipes")
struct LumaTests {
    /// A PGM picture (FFmpeg reads it) of `width` x `height`, `maxval` 255 or 65535, each
    /// pixel `value(x, y)` in 0...1.
    func pgm(_ name: String, width: Int, height: Int, sixteen: Bool, in folder: URL, _ value: (Int, Int) -> Double) throws -> String {
        var data = Data("P5\n\(width) \(height)\n\(sixteen ? 65535 : 255)\n".utf8)
        for y in 0..<height {
            for x in 0..<width {
                let v = min(max(value(x, y), 0), 1)
                if sixteen {
                    let w = UInt16((v * 65535).rounded())
                    data.append(contentsOf: [UInt8(w >> 8), UInt8(w & 255)])
                } else {
                    data.append(UInt8((v * 255).rounded()))
                }
            }
        }
        let path = folder.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The frame of `luma` at `progress` from a black page to a white one: each pixel's red,
    /// which is 255 times the incoming page's weight there.
    func frame(_ luma: Luma, progress: Double, width: Int, height: Int) -> [Int] {
        let a = [UInt32](repeating: 0xFF00_0000, count: width * height), b = [UInt32](repeating: 0xFFFF_FFFF, count: width * height)
        var out = [UInt32](repeating: 0, count: width * height)
        // A file's matte made ready for the canvas, as the render does before its first frame.
        let rows = ((try? luma.opening(MediaFiles(), width: width, height: height, limits: Limits())) ?? luma).rows(progress: progress, width: width, height: height)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                out.withUnsafeMutableBufferPointer { po in
                    let pages = PagePictures(a: pa.baseAddress!, b: pb.baseAddress!, width: width, height: height)
                    for y in 0..<height { rows(y, pages, po.baseAddress! + y * width) }
                }
            }
        }
        return out.map { Int($0 & 0xFF) }
    }

    func luma(_ matte: String, softness: Double = 0, invert: Bool = false, reverse: Bool = false) -> Luma {
        Luma().with(Luma.matte, matte).with(Luma.softness, softness).with(Luma.invert, invert).with(Luma.reverse, reverse)
    }

    @Test("a left-to-right gradient with softness 0 at progress p shows the next page left of p × width (±1 px), the last right of it; invert and reverse mirror it")
    func gradientEdge() throws {
        let folder = temporaryFolder()
        let width = 200, height = 6
        let matte = try pgm("gradient.pgm", width: width, height: height, sixteen: true, in: folder) { x, _ in (Double(x) + 0.5) / Double(width) }
        for p in [0.1, 0.3, 0.5, 0.7, 0.9] {
            let edge = p * Double(width)
            let forward = frame(luma(matte), progress: p, width: width, height: height)
            for mirrored in [luma(matte, invert: true), luma(matte, reverse: true)] {
                let other = frame(mirrored, progress: p, width: width, height: height)
                for x in 0..<width {
                    let centre = Double(x) + 0.5
                    if centre < edge - 1 { #expect(forward[x] == 255, "p \(p), x \(x): \(forward[x])") }
                    if centre > edge + 1 { #expect(forward[x] == 0, "p \(p), x \(x): \(forward[x])") }
                    // Mirrored: the next page from the right.
                    let back = Double(width) - edge
                    if centre > back + 1 { #expect(other[x] == 255, "mirrored p \(p), x \(x): \(other[x])") }
                    if centre < back - 1 { #expect(other[x] == 0, "mirrored p \(p), x \(x): \(other[x])") }
                }
            }
            // Every row the same.
            #expect(forward[width..<(2 * width)] == forward[0..<width])
        }
    }

    @Test("softness s makes a ramp s × width wide on a gradient")
    func softnessRamp() throws {
        let folder = temporaryFolder()
        let width = 400
        let matte = try pgm("gradient.pgm", width: width, height: 2, sixteen: true, in: folder) { x, _ in Double(x) / Double(width - 1) }
        for s in [0.1, 0.25, 0.5] {
            let row = Array(frame(luma(matte, softness: s), progress: 0.5, width: width, height: 2).prefix(width))
            let ramp = row.filter { $0 > 0 && $0 < 255 }.count
            #expect(abs(Double(ramp) - s * Double(width)) <= 3, "softness \(s): ramp \(ramp) columns")
            // Falls from the next page to the last, never rising.
            #expect(zip(row, row.dropFirst()).allSatisfy { $0 >= $1 }, "softness \(s)")
        }
    }

    @Test("an 8-bit gradient matte, wiping over 10 s at 30 fps on a 1080-wide canvas, steps no more between neighbouring columns than the ramp's own slope (no bands)")
    func noBands() throws {
        let folder = temporaryFolder()
        // 256 columns, one 8-bit level each, fitted to 1080: 16-bit resampling gives levels between them.
        let matte = try pgm("levels.pgm", width: 256, height: 2, sixteen: false, in: folder) { x, _ in Double(x) / 255 }
        let width = 1080, softness = 0.2
        let slope = 255 / (softness * Double(width))   // the ramp's step between columns, in levels of the frame
        var largest = 0
        for frameIndex in stride(from: 1, to: 300, by: 7) {
            let row = Array(frame(luma(matte, softness: softness), progress: Double(frameIndex) / 300, width: width, height: 1))
            for x in 1..<width { largest = max(largest, abs(row[x] - row[x - 1])) }
        }
        #expect(Double(largest) <= slope.rounded(.up) + 1, "largest step \(largest) levels, the ramp's slope \(slope)")
        // (Kept to 8 bits, the same matte would step 4.2 columns at a time: 1 / 255 of the range
        // over the ramp's 0.2, five levels of the frame at once.)
    }

    @Test("a clip matte changes with its frames: dark on the left for its first half second, on the right for the next")
    func clipMatte() throws {
        let folder = temporaryFolder()
        let clip = folder.appendingPathComponent("matte.mp4").path
        let r = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                    "nullsrc=s=64x64:r=30:d=1,format=gray,geq=lum='if(lt(T,0.5),if(lt(X,32),0,255),if(lt(X,32),255,0))'",
                                    "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv444p", clip])
        #expect(r.status == 0, "\(r.stderr)")
        let width = 64, height = 8
        let early = frame(luma(clip).with(Luma.fit, .stretch), progress: 0.25, width: width, height: height)
        let late = frame(luma(clip).with(Luma.fit, .stretch), progress: 0.75, width: width, height: height)
        // At 0.25 (its frame at 0.25 s) the dark left half has passed, the light right not yet;
        // at 0.75 (0.75 s) the dark right half has, and the light left not yet.
        for y in 0..<height {
            #expect(early[y * width + 8] == 255 && early[y * width + 56] == 0, "early row \(y)")
            #expect(late[y * width + 8] == 0 && late[y * width + 56] == 255, "late row \(y)")
        }
    }

    @Test("each of Segue's mattes spans the whole range, differs from every other, and its parameters change it")
    func shapes() throws {
        let width = 90, height = 160
        var seen: [[UInt16]] = []
        for shape in MatteShape.allCases {
            let matte = try #require(luma(shape.rawValue).matte(progress: 0, width: width, height: height))
            #expect(matte.values.min() == 0 && matte.values.max() == 65535, "\(shape)")
            #expect(!seen.contains(matte.values), "\(shape) is drawn like another")
            seen.append(matte.values)
        }
        func values(_ l: Luma) throws -> [UInt16] { try #require(l.matte(progress: 0, width: width, height: height)).values }
        #expect(try values(luma("bars").with(Luma.count, 3)) != values(luma("bars")))
        #expect(try values(luma("bars").with(Luma.axis, .vertical)) != values(luma("bars")))
        #expect(try values(luma("spiral").with(Luma.turns, 5)) != values(luma("spiral")))
        #expect(try values(luma("blocks").with(Luma.seed, 7)) != values(luma("blocks")))
        // iris at 0.5: the centre has the next page, the corners the last.
        let iris = frame(luma("iris"), progress: 0.5, width: width, height: height)
        #expect(iris[(height / 2) * width + width / 2] == 255 && iris[0] == 0 && iris[width * height - 1] == 0)
        // clock at 0.25: only the upper right quarter has turned.
        let clock = frame(luma("clock"), progress: 0.25, width: width, height: height)
        #expect(clock[10 * width + 80] == 255 && clock[10 * width + 10] == 0 && clock[150 * width + 80] == 0 && clock[150 * width + 10] == 0)
    }

    @Test("a matte named in a preset is found beside it; a missing one, or a folder, is refused naming the key and the file")
    func matteSetting() throws {
        let folder = temporaryFolder()
        _ = try pgm("wipe.pgm", width: 8, height: 8, sixteen: false, in: folder) { x, _ in Double(x) / 7 }
        let preset = folder.appendingPathComponent("mine.yaml")
        try "extends: crossfade\ntransition: {kind: luma, matte: wipe.pgm, softness: 0.3}\n".write(to: preset, atomically: true, encoding: .utf8)
        let read = try Preset.load(preset.path)
        let luma = try #require(read.transition.transition as? Luma)
        #expect(luma.values[Luma.matte] == folder.appendingPathComponent("wipe.pgm").path)
        #expect(luma.values[Luma.softness] == 0.3)
        // A built-in matte's name stays a name.
        try "extends: crossfade\ntransition: {kind: luma, matte: Heart}\n".write(to: preset, atomically: true, encoding: .utf8)
        #expect((try Preset.load(preset.path).transition.transition as? Luma)?.source == .builtIn(.heart))
        try "extends: crossfade\ntransition: {kind: luma, matte: nowhere.png}\n".write(to: preset, atomically: true, encoding: .utf8)
        #expect {
            try Preset.load(preset.path)
        } throws: { error in
            let text = "\(error)"
            return text.contains("transition.matte") && text.contains("nowhere.png") && text.contains("no such file") && text.contains("mine.yaml")
        }
    }
}
