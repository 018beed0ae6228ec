import Foundation
import Testing
@testable import Segue

/// A preview's segments: a video cut at its screens, keyed by what draws each part, joined by copy.
@Suite("Segments: the parts a preview renders again")
struct SegmentsTests {
    static func job(_ slides: String, screen: String = "", in folder: URL) throws -> Job {
        for name in ["a.jpg", "b.png", "c.webp"] where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        let path = folder.appendingPathComponent("story.yaml")
        try ("preset: stories-cube\nset: {canvas.size: [90, 160], canvas.scale: 0.25, fps: 10}\n" + screen + "slides:\n" + slides)
            .write(to: path, atomically: true, encoding: .utf8)
        let story = try Story.load(path.path)
        let preset = try Preset.load(story.preset ?? "stories-cube", underlying: story.settings)
        return try Job(story: story, preset: preset, output: folder.appendingPathComponent("out.mp4").path)
    }

    static func slides(holds: [Double], third: String = "c.webp") -> String {
        """
          - {image: a.jpg, hold: \(holds[0]), motion: in, transition: {kind: crossfade, duration: 0.5}}
          - {image: b.png, hold: \(holds[1]), transition: {kind: slideleft, duration: 0.5}}
          - {image: \(third), hold: \(holds[2]), transition: {kind: iris, duration: 0.5}}
          - {image: a.jpg, hold: \(holds[3])}

        """
    }

    @Test("the ranges cover every frame once, in order: each screen's hold and the transition out of it")
    func ranges() throws {
        let job = try Self.job(Self.slides(holds: [1, 1.25, 0.03, 1]), in: temporaryFolder())
        let ranges = Segments.ranges(of: job.timeline)
        #expect(ranges.count == 4)
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == job.timeline.frameCount)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        // 1 s hold + 0.5 s crossfade at 10 fps: frames 0-14; then 1.25 + 0.5: frames 15-32.
        #expect(ranges[0] == 0..<15 && ranges[1] == 15..<33, "\(ranges)")
        for (index, range) in ranges.enumerated() {
            for frame in range {
                switch job.timeline.moment(at: frame) {
                case let .hold(screen): #expect(screen == index)
                case let .transition(step, _, _): #expect(step == index)
                }
            }
        }
    }

    @Test("a longer hold changes its slide's part and the one leading into it; a changed picture the parts that show it")
    func keys() throws {
        let folder = temporaryFolder()
        let base = try Segments.of(try Self.job(Self.slides(holds: [1, 1, 1, 1]), in: folder)).map(\.key)
        #expect(Set(base).count == 4)
        let again = try Segments.of(try Self.job(Self.slides(holds: [1, 1, 1, 1]), in: folder)).map(\.key)
        #expect(again == base)
        // Slide 3 held longer: its own part, and slide 2's (its transition shows slide 3); the
        // first and last keep theirs, though the last moved later.
        let longer = try Segments.of(try Self.job(Self.slides(holds: [1, 1, 2, 1]), in: folder)).map(\.key)
        #expect(longer[0] == base[0] && longer[1] != base[1] && longer[2] != base[2] && longer[3] == base[3])
        // Another picture on slide 3: the parts that show it.
        try FileManager.default.copyItem(atPath: example("b.png"), toPath: folder.appendingPathComponent("other.png").path)
        let other = try Segments.of(try Self.job(Self.slides(holds: [1, 1, 1, 1], third: "other.png"), in: folder)).map(\.key)
        #expect(other[0] == base[0] && other[1] != base[1] && other[2] != base[2] && other[3] == base[3])
        // Text on the screen from 0.2 s to 0.8 s: only the first part meets it.
        let text = try Segments.of(try Self.job(Self.slides(holds: [1, 1, 1, 1]), screen: "overlays: [{text: Hi, start: 0.2, end: 0.8}]\n", in: folder)).map(\.key)
        #expect(text[0] != base[0] && Array(text[1...]) == Array(base[1...]))
        // From 1.2 s to 2 s: across the first part's end (1.5 s), so the first two parts.
        let across = try Segments.of(try Self.job(Self.slides(holds: [1, 1, 1, 1]), screen: "overlays: [{text: Hi, start: 1.2, end: 2}]\n", in: folder)).map(\.key)
        #expect(across[0] != base[0] && across[1] != base[1] && Array(across[2...]) == Array(base[2...]))
    }

    @Test("parts rendered alone and joined by copy make a video of every frame that ffprobe reads, sound included")
    func joined() throws {
        let folder = temporaryFolder()
        _ = try ffmpegMake("music.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-c:a", "aac"], in: folder)
        let job = try Self.job(Self.slides(holds: [0.5, 0.5, 0.5, 0.5]), screen: "audio: music.m4a\n", in: folder)
        var parts: [(path: String, start: Int)] = []
        for (n, segment) in try Segments.of(job).enumerated() where !segment.frames.isEmpty {
            let path = folder.appendingPathComponent("part-\(n).mp4").path
            try Segments.render(job, frames: segment.frames, to: path)
            parts.append((path, segment.frames.lowerBound))
        }
        let sound = try #require(try Segments.renderSound(job, in: folder.appendingPathComponent("sound").path))
        let joined = folder.appendingPathComponent("joined.mp4").path
        try Segments.join(job, segments: parts, sound: sound, to: joined)
        let probe = try tool("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames", "-of", "csv=p=0", joined])
        #expect(probe.stdout.contains("video,\(job.timeline.frameCount)") && probe.stdout.contains("audio"), "\(probe.stdout) \(probe.stderr)")
    }
}
