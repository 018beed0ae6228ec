import Foundation
import Testing

/// The mean Y, Cb and Cr of each yuv420p frame of a raw stream.
func meanYUV(_ path: String, width: Int, height: Int) throws -> [(y: Double, u: Double, v: Double)] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let luma = width * height, chroma = luma / 4, frame = luma + 2 * chroma
    return stride(from: 0, to: data.count - frame + 1, by: frame).map { start in
        func mean(_ from: Int, _ count: Int) -> Double {
            data[(start + from)..<(start + from + count)].reduce(0.0) { $0 + Double($1) } / Double(count)
        }
        return (mean(0, luma), mean(luma, chroma), mean(luma + chroma, chroma))
    }
}

/// The name of the colour, among `colours` (red, green, blue in 0...1), whose BT.709
/// limited-range Y, Cb, Cr are nearest `yuv`.
func nearestColour(_ yuv: (y: Double, u: Double, v: Double), among colours: [String: (Double, Double, Double)]) -> String {
    colours.min { a, b in
        func distance(_ c: (Double, Double, Double)) -> Double {
            let y = 0.2126 * c.0 + 0.7152 * c.1 + 0.0722 * c.2
            let expected = (16 + 219 * y, 128 + 224 * (c.2 - y) / 1.8556, 128 + 224 * (c.0 - y) / 1.5748)
            return pow(expected.0 - yuv.y, 2) + pow(expected.1 - yuv.u, 2) + pow(expected.2 - yuv.v, 2)
        }
        return distance(a.value) < distance(b.value)
    }!.key
}

@Suite("Stories that hold: trimmed clips, batch errors that tell the truth, cuts that list what they accept")
struct StoryDefectTests {
    static let colours: [String: (Double, Double, Double)] = ["red": (1, 0, 0), "lime": (0, 1, 0), "blue": (0, 0, 1), "yellow": (1, 1, 0)]

    /// A clip of four flat colours, 0.5 s each at 30 fps: red, lime, blue, yellow.
    func fourColours(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("four.mp4").path
        let parts = ["red", "lime", "blue", "yellow"].enumerated().map { "color=c=\($1):s=64x96:r=30:d=0.5[c\($0)]" }.joined(separator: ";")
        let r = try tool("ffmpeg", ["-v", "error", "-y", "-filter_complex", parts + ";[c0][c1][c2][c3]concat=n=4:v=1:a=0",
                                    "-c:v", "libx264", "-pix_fmt", "yuv420p", path])
        #expect(r.status == 0, "\(r.stderr)")
        return path
    }

    @Test("a trimmed clip on screen longer than its part holds the part's last frame, never a frame after the trim",
          arguments: [("duration: 1", ["red", "lime"]), ("start: 0.5\n    duration: 1", ["lime", "blue"]), ("start: 0.5\n    end: 1.5", ["lime", "blue"])])
    func trimHolds(trim: String, shown: [String]) throws {
        let segue = try installedAlone()
        let folder = try photoFolder()
        _ = try fourColours(in: folder)
        try """
            preset: crossfade
            set: {canvas.size: [64, 96], canvas.scale: 0.5, fps: 30, transition.duration: 0}
            slides:
              - clip: four.mp4
                \(trim)
                hold: 2
              - {image: a.jpg, hold: 0.5}
            """.write(to: folder.appendingPathComponent("trim.yaml"), atomically: true, encoding: .utf8)
        let r = try run(segue, ["render", "--story", "trim.yaml", "-o", "trim.yuv"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try meanYUV(folder.appendingPathComponent("trim.yuv").path, width: 64, height: 96)
        #expect(frames.count == 75, "2 s of clip and 0.5 s of photo at 30 fps")
        let names = frames.prefix(60).map { nearestColour($0, among: StoryDefectTests.colours) }
        // The part's first colour for its first half second, then its last until the slide leaves.
        #expect(names[0..<15].allSatisfy { $0 == shown[0] }, "\(names)")
        #expect(names[15..<60].allSatisfy { $0 == shown[1] }, "\(names)")
    }

    @Test("a clip: that is no video names the story file and the line")
    func clipThatIsSound() throws {
        let folder = temporaryFolder()
        _ = try makeClip("music.wav", "sine=frequency=440:duration=1", in: folder)
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        let story = folder.appendingPathComponent("s.yaml").path
        try "slides:\n  - image: a.jpg\n  - clip: music.wav\n".write(toFile: story, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("s.mp4").path
        let r = try segue("render", "--story", story, "-o", out)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("story \(story), line 3: 'slides[2].clip' is '\(folder.appendingPathComponent("music.wav").path)' (expected a video clip"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("a cut lists the kinds a cut accepts, and says why a whole-story preset is none")
    func cutKinds() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        // Every transition that joins two slides, then the other names of such (FFmpeg xfade's, the gl-transitions files').
        let accepted = "one of: cut, stories-cube, telegram-cube, crossfade, slide, flip, iris, whip, zoomblur, punch, glitch, shake, stinger, cover, reveal, wipe, "
        for (kind, why) in [("instagram-zoom", "'instagram-zoom' is the name of a built-in preset whose transition, shared-zoom, builds screens of its own"),
                            ("cube-fold", "'cube-fold' builds screens of its own"), ("shared-zoom", "'shared-zoom' builds screens of its own"),
                            ("cubee", "(expected one of: cut, ")] {
            let story = folder.appendingPathComponent("\(kind).yaml").path
            try "slides:\n  - image: a.jpg\n    transition: \(kind)\n  - image: a.jpg\n".write(toFile: story, atomically: true, encoding: .utf8)
            let r = try segue("render", "--story", story, "-o", folder.appendingPathComponent("x.mp4").path)
            #expect(r.status == 2 && r.stderr.contains("line 3: 'transition' is '\(kind)'"), "\(r.stderr)")
            #expect(r.stderr.contains(accepted) && r.stderr.contains(why), "\(kind): \(r.stderr)")
            // No kind a cut refuses is offered: the list above is the whole list.
            let list = r.stderr.range(of: "one of: cut, ").map { String(r.stderr[$0.upperBound...].prefix { $0 != ")" && $0 != ";" }) } ?? ""
            let kinds = list.components(separatedBy: ", ")
            #expect(!kinds.contains("cube-fold") && !kinds.contains("shared-zoom") && list.hasSuffix("rotate_scale_fade, directionalwarp"), "\(r.stderr)")
        }
    }

    @Test("a batch job with slides: every problem of the job with its line, no false 'inputs is missing', and --dry-run's table")
    func batchSlides() throws {
        let segue = try installedAlone()
        let folder = try photoFolder()
        try """
            jobs:
              - name: story
                output: out/story.mp4
                slides:
                  - {image: a.jpg, hold: -1}
                  - {image: gone.jpg}
              - {name: plain, inputs: [a.jpg, b.png], output: out/plain.mp4}
            """.write(to: folder.appendingPathComponent("m.yaml"), atomically: true, encoding: .utf8)
        let run1 = try run(segue, ["batch", "m.yaml"], in: folder)
        #expect(run1.status == 2, "\(run1.stderr)")
        #expect(run1.stderr.contains("line 5: 'jobs[1].slides[1].hold' is -1, out of range (expected 0...3600)"), "\(run1.stderr)")
        #expect(run1.stderr.contains("line 6: 'jobs[1].slides[2].image' is '"), "\(run1.stderr)")
        #expect(!run1.stderr.contains("inputs' is missing"), "\(run1.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/plain.mp4").path), "a wrong job runs nothing")
        let dry = try run(segue, ["batch", "m.yaml", "--dry-run"], in: folder)
        #expect(dry.status == 2, "\(dry.stderr)")
        let rows = dry.stdout.split(separator: "\n")
        #expect(rows.contains { $0.contains("story") && $0.contains("invalid") && $0.contains("hold' is -1") && $0.contains("gone.jpg") }, "\(dry.stdout)")
        #expect(rows.contains { $0.contains("plain") && $0.contains("render") }, "\(dry.stdout)")
    }
}
