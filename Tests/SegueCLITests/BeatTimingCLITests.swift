import Foundation
import SegueTestSupport
import Testing

/// `timing: beats` as a user renders it: a story's cuts on a click track's beats, seen in the
/// frames (each slide a grey of its own, its level read from the raw yuv420p frames); the
/// fallback when the music has no beat; chunks that agree with one machine.
@Suite("Cuts on the beat, rendered")
struct BeatTimingCLITests {
    static let holds = [1.7, 2.2, 0.9, 1.3, 2.6, 1.1, 1.9, 1.5]
    /// The cut after each slide: a hard cut, or a crossfade of some beats.
    static let cuts = ["cut", "{kind: crossfade, duration: 1b}", "cut", "{kind: crossfade, duration: 2b}", "{kind: crossfade, duration: 1b}",
                       "cut", "{kind: crossfade, duration: 1b}"]
    static let size = 32

    /// A folder with eight grey slides, the music and a story of them over it, timed by `timing`.
    static func story(music: (URL) throws -> String, timing: String = "{beats: true, every: 2}") throws -> (folder: URL, story: String) {
        let folder = temporaryFolder()
        for k in 0..<8 {
            let grey = String(format: "%02x", 30 + 28 * k)
            try ffmpegMake("g\(k).png", ["-f", "lavfi", "-i", "color=c=0x\(grey)\(grey)\(grey):s=16x16", "-frames:v", "1"], in: folder)
        }
        let file = (try music(folder) as NSString).lastPathComponent
        var yaml = "preset: crossfade\nset: {canvas.size: [\(size), \(size)], fps: 30}\naudio: \(file)\ntiming: \(timing)\nslides:\n"
        for k in 0..<8 {
            yaml += "  - {image: g\(k).png, hold: \(holds[k])\(k < 7 ? ", transition: \(cuts[k])" : "")}\n"
        }
        try yaml.write(to: folder.appendingPathComponent("story.yaml"), atomically: true, encoding: .utf8)
        return (folder, "story.yaml")
    }

    static func segue(_ arguments: [String], in folder: URL) throws -> Run {
        try run(segueBinary, arguments, in: folder, environment: ["SEGUE_CACHE": folder.appendingPathComponent("cache").path])
    }

    /// The luma at the middle of each frame of a yuv420p file of `size`².
    static func levels(_ path: String) throws -> [Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let frame = size * size * 3 / 2
        return stride(from: 0, to: data.count - frame + 1, by: frame).map { Double(data[$0 + size * (size / 2) + size / 2]) }
    }

    @Test("8 slides over 120 BPM, every 2 beats: hard cuts' first frames just after their beats, transitions centred on theirs")
    func onTheBeat() throws {
        let (folder, story) = try Self.story(music: { try clickTrack(bpm: 120, seconds: 30, in: $0) })
        let render = try Self.segue(["render", "--story", story, "-o", "frames.yuv"], in: folder)
        try #require(render.status == 0, "\(render.stderr)")
        #expect(!render.stderr.contains("warning"), "\(render.stderr)")
        let y = try Self.levels(folder.appendingPathComponent("frames.yuv").path)
        let grey: [Double] = (0..<8).map { k -> Double in 16 + 219 * Double(30 + 28 * k) / 255 }
        func isSlide(_ value: Double, _ k: Int) -> Bool { abs(value - grey[k]) <= 1.5 }
        // Every 2 beats from the first bar at 120 BPM: whole seconds.
        var frame = 0
        for k in 0..<7 {
            while frame < y.count, isSlide(y[frame], k) { frame += 1 }
            try #require(frame < y.count, "slide \(k + 1) never ends")
            if Self.cuts[k] == "cut" {
                #expect(isSlide(y[frame], k + 1), "cut \(k + 1): frame \(frame) is neither slide")
                let t = Double(frame) / 30, beat = t.rounded(.down) + (t - t.rounded(.down) > 0.9 ? 1 : 0)
                #expect(t - beat >= -0.001 && t - beat < 1.0 / 30 + 0.012, "cut \(k + 1): first frame of slide \(k + 2) at \(t) s, beat at \(beat) s")
            } else {
                // The crossfade's middle: where the level crosses halfway, between two frames.
                let half = (grey[k] + grey[k + 1]) / 2
                var i = frame
                while i < y.count, y[i] < half { i += 1 }
                let crossing = (Double(i - 1) + (half - y[i - 1]) / (y[i] - y[i - 1])) / 30
                #expect(abs(crossing - crossing.rounded()) <= 1.0 / 30, "cut \(k + 1): the crossfade is centred at \(crossing) s, not on a beat")
                frame = i
                while frame < y.count, !isSlide(y[frame], k + 1) { frame += 1 }
            }
        }
        // The end on the grid too, and the video as long as the dry run's fitted holds say.
        let dry = try Self.segue(["render", "--story", story, "-o", "frames.yuv", "--dry-run", "--force"], in: folder)
        try #require(dry.status == 0, "\(dry.stderr)")
        let end = try #require(dry.stdout.split(separator: "\n").last.flatMap { Double($0.split(separator: " ")[2]) }, "\(dry.stdout)")
        #expect(abs(end - end.rounded()) <= 0.012 && y.count == Int((end * 30).rounded()), "\(y.count) frames, the end at \(end) s")
        let lines = dry.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("timing: beats of clicks-120.0-0.25.wav: 120.00 BPM, 4/4") }, "\(dry.stdout)")
        #expect(lines.filter { $0.hasPrefix("cut ") && $0.contains(", on beat ") && $0.contains("moved ") }.count == 7, "\(dry.stdout)")
        #expect(lines.contains { $0.hasPrefix("cut 4 (crossfade 1.000 s, 2b)") }, "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("frames.yuv.part").path))
    }

    @Test("silence and speech keep the story's holds, with one warning; strict exits 2 and writes nothing",
          arguments: ["silence", "speech"])
    func noBeat(_ kind: String) throws {
        let music: (URL) throws -> String = { folder in
            if kind == "silence" { return try ffmpegMake("quiet.wav", ["-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono", "-t", "20"], in: folder) }
            let path = folder.appendingPathComponent("speech.wav").path
            try succeed("espeak-ng", ["-w", path, "This is a spoken track. It has words and pauses, but no beat at all. It goes on a while, "
                                      + "sentence after sentence, the way a voice over does, and then it says some more words so that it lasts."])
            return path
        }
        let (folder, story) = try Self.story(music: music)
        let timed = try Self.segue(["render", "--story", story, "-o", "timed.framemd5"], in: folder)
        try #require(timed.status == 0, "\(timed.stderr)")
        let warnings = timed.stderr.split(separator: "\n").filter { $0.hasPrefix("segue: warning: timing: beats:") }
        #expect(warnings.count == 1 && warnings[0].contains("keeps its own holds"), "\(timed.stderr)")
        let text = try String(contentsOf: folder.appendingPathComponent("story.yaml"), encoding: .utf8)
        // The same story timed by its own holds, its beats of 120 BPM (what music without a beat counts) in seconds.
        try text.replacingOccurrences(of: "timing: {beats: true, every: 2}", with: "timing: none")
            .replacingOccurrences(of: "duration: 1b", with: "duration: 0.5").replacingOccurrences(of: "duration: 2b", with: "duration: 1")
            .write(to: folder.appendingPathComponent("plain.yaml"), atomically: true, encoding: .utf8)
        let plain = try Self.segue(["render", "--story", "plain.yaml", "-o", "plain.framemd5"], in: folder)
        try #require(plain.status == 0, "\(plain.stderr)")
        #expect(try String(contentsOf: folder.appendingPathComponent("timed.framemd5"), encoding: .utf8)
                == String(contentsOf: folder.appendingPathComponent("plain.framemd5"), encoding: .utf8))
        try text.replacingOccurrences(of: "beats: true", with: "beats: strict").write(to: folder.appendingPathComponent("strict.yaml"), atomically: true, encoding: .utf8)
        let strict = try Self.segue(["render", "--story", "strict.yaml", "-o", "strict.mp4"], in: folder)
        #expect(strict.status == 2 && strict.stderr.contains("strict.yaml, line 4") && strict.stderr.contains("timing.beats"), "\(strict.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("strict.mp4") }.isEmpty)
    }

    @Test("4 chunks and the sound task join into the frames and sound of one machine; the chunks share one analysis")
    func chunks() throws {
        let (folder, story) = try Self.story(music: { try clickTrack(bpm: 120, seconds: 30, in: $0) })
        let whole = try Self.segue(["render", "--story", story, "-o", "whole.mp4"], in: folder)
        try #require(whole.status == 0, "\(whole.stderr)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("cache"))
        var kept: [FileAttributeKey: Any]?
        for part in ["1/4", "2/4", "3/4", "4/4", "sound"] {
            let run = try Self.segue(["render", "--story", story, "-o", "parts.mp4", "--chunk", part], in: folder)
            try #require(run.status == 0, "\(part): \(run.stderr)")
            let cache = folder.appendingPathComponent("cache/beats").path
            let files = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".json") }
            #expect(files.count == 1, "\(files)")
            let attributes = try FileManager.default.attributesOfItem(atPath: cache + "/" + files[0])
            if let kept {
                #expect(kept[.systemFileNumber] as? UInt64 == attributes[.systemFileNumber] as? UInt64, "\(part) analysed the music again")
            }
            kept = kept ?? attributes
        }
        let join = try Self.segue(["join", "--story", story, "-o", "parts.mp4"], in: folder)
        try #require(join.status == 0, "\(join.stderr)")
        for stream in ["0:v", "0:a"] {
            func md5(_ name: String) throws -> String {
                try succeed("ffmpeg", ["-v", "error", "-i", folder.appendingPathComponent(name).path, "-map", stream, "-f", "framemd5", "-"]).stdout
                    .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" }.joined(separator: "\n")
            }
            #expect(try md5("whole.mp4") == md5("parts.mp4"), "\(stream) differs")
        }
    }
}
