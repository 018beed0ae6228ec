import Foundation
import Testing
@testable import Segue

/// A clip made by FFmpeg's testsrc2 (H.264), `seconds` long.
func testClip(_ name: String, seconds: Double, size: String = "160x120", rate: Int = 30, in folder: URL) throws -> String {
    let path = folder.appendingPathComponent(name).path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(size):r=\(rate):d=\(seconds)",
                         "-c:v", "libx264", "-pix_fmt", "yuv420p", path]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return path
}

@Suite("Clip feeds: decoding beside the compositor")
struct ClipFeedTests {
    func story(_ folder: URL) throws -> (Preset, [StorySlide]) {
        let preset = try Preset.load("stories-cube", overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25", "transition.duration=0.4"])
        let one = try testClip("one.mp4", seconds: 1.2, in: folder), two = try testClip("two.mp4", seconds: 1, rate: 24, in: folder)
        return (preset, [StorySlide(image: one), StorySlide(image: two), StorySlide(image: example("a.jpg"), hold: 0.3)])
    }

    @Test("two clips turning on one cube give the same frames on every run and for any thread count")
    func deterministic() throws {
        let folder = temporaryFolder()
        let (preset, slides) = try story(folder)
        var digests: [String] = []
        for threads in [1, 2, 1, 3] {
            let out = folder.appendingPathComponent("f\(digests.count).framemd5").path
            let job = try Job(preset: preset, slides: slides, output: out, threads: threads)
            #expect(job.clips.count == 2 && job.clips[0]?.info.frameRate == 30)
            try Exporter.run(job)
            let text = try String(contentsOfFile: out, encoding: .utf8)
            digests.append(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n"))
        }
        #expect(Set(digests).count == 1, "frames differ between runs or thread counts")
        // 1.2 s on screen (0 + 0.8 hold + 0.4 cube), then 1 s (0.4 + 0.2 + 0.4), then 0.3 s.
        let seconds: Double = 0.8 + 0.4 + 0.2 + 0.4 + 0.3
        #expect(digests[0].split(separator: "\n").count == Int((30 * seconds).rounded()))
    }

    @Test("a clip's hold is composed every frame and shows a new picture each time (a 30 fps clip at 30 fps)")
    func plays() throws {
        let folder = temporaryFolder()
        let (preset, slides) = try story(folder)
        let out = folder.appendingPathComponent("p.framemd5").path
        let job = try Job(preset: preset, slides: slides, output: out, threads: 2)
        let result = try Exporter.run(job)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        let digests = lines.map { $0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces) }
        // The first clip holds 0.8 s: frames 0...23, each a different clip frame.
        #expect(Set(digests[0..<24]).count == 24, "\(Set(digests[0..<24]).count) distinct frames in the hold")
        let clipSeconds: Double = 0.8 + 0.4 + 0.2 + 0.4
        #expect(result.framesComposed >= Int((30 * clipSeconds).rounded()))
    }

    @Test("a cancelled export with clips stops, and its feeds' threads end")
    func cancelled() throws {
        let folder = temporaryFolder()
        let (preset, slides) = try story(folder)
        let cancel = Cancellation()
        let out = folder.appendingPathComponent("x.mp4").path
        let job = try Job(preset: preset, slides: slides, output: out)
        #expect(throws: ExportError.cancelled) {
            try Exporter.run(job, cancellation: cancel) { progress in if progress.framesDone == 5 { cancel.cancel() } }
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
