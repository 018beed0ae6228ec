import Foundation
import Testing

@Suite("segue render --story, and stories in batches")
struct StoryCLITests {
    let story = """
        preset: slide
        set: {canvas.size: [90, 160], canvas.scale: 0.25, fps: 10}
        slides:
          - image: a.jpg
            hold: 1
            motion: in
            transition: {kind: crossfade, duration: 0.5}
          - image: b.png
            motion: {kind: left, amount: 0.15, curve: linear}
            transition: {kind: iris, duration: 0.5, center: [0.2, 0.8]}
          - {image: c.webp, hold: 0.5}

        """

    @Test("a story renders from its file, paths relative to it; --set and --fps win over the file's set")
    func render() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("stories"), withIntermediateDirectories: true)
        try story.replacingOccurrences(of: "image: ", with: "image: ../")
            .write(to: photos.appendingPathComponent("stories/trip.yaml"), atomically: true, encoding: .utf8)
        let r = try run(segue, ["render", "--story", "stories/trip.yaml", "-o", "trip.mp4", "--set", "hold=1"], in: photos)
        #expect(r.status == 0, "\(r.stderr)")
        // 1 + 0.5 + 1 (the preset's hold, set on the command line) + 0.5 + 0.5 = 3.5 s at 10 fps.
        #expect(try frameCount(photos.appendingPathComponent("trip.mp4").path) == 35)
        let faster = try run(segue, ["render", "--story", "stories/trip.yaml", "-o", "fast.mp4", "--set", "hold=1", "--fps", "20"], in: photos)
        let fastFrames = try frameCount(photos.appendingPathComponent("fast.mp4").path)
        #expect(faster.status == 0 && fastFrames == 70, "\(faster.stderr)")
        let both = try run(segue, ["render", "--story", "stories/trip.yaml", "a.jpg", "-o", "x.mp4"], in: photos)
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
    }

    @Test("a story with a mistake exits 2 naming the file, the line and the likely key; nothing is written")
    func errors() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let cases: [(String, String)] = [
            (story.replacingOccurrences(of: "motion: in", with: "motoin: in"), "story bad.yaml, line 6: unknown key 'slides[1].motoin'. Did you mean 'motion'?"),
            (story.replacingOccurrences(of: "c.webp", with: "gone.webp"), "story bad.yaml, line 11: 'slides[3].image' is 'gone.webp'"),
            (story.replacingOccurrences(of: "hold: 0.5}", with: "hold: -2}"), "story bad.yaml, line 11: 'slides[3].hold' is -2, out of range"),
            (story.replacingOccurrences(of: "kind: iris, duration: 0.5, center: [0.2, 0.8]", with: "kind: cube-fold"), "line 10: 'transition.kind' is 'cube-fold' (expected a transition that joins two slides (one of: cut, stories-cube"),
        ]
        for (text, message) in cases {
            try text.write(to: photos.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
            let r = try run(segue, ["render", "--story", "bad.yaml", "-o", "bad.mp4"], in: photos)
            #expect(r.status == 2 && r.stderr.contains(message), "\(message): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: photos.appendingPathComponent("bad.mp4").path))
        }
    }

    @Test("a batch job may give slides instead of inputs")
    func batch() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let slides = story.split(separator: "\n").drop { !$0.hasPrefix("slides:") }.dropFirst().map { "    " + $0 }.joined(separator: "\n")
        let manifest = "jobs:\n  - name: trip\n    preset: slide\n    set: {canvas.size: [90, 160], canvas.scale: 0.25, fps: 10}\n    output: out/trip.mp4\n    slides:\n\(slides)\n"
        try manifest.write(to: photos.appendingPathComponent("jobs.yaml"), atomically: true, encoding: .utf8)
        let r = try run(segue, ["batch", "jobs.yaml", "--quiet"], in: photos)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try frameCount(photos.appendingPathComponent("out/trip.mp4").path) == 45) // 1 + 0.5 + 2 (the preset's hold) + 0.5 + 0.5 s at 10 fps
    }
}
