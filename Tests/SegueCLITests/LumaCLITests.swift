import Foundation
import SegueTestSupport
import Testing

/// Luma wipes from the command line: a story's matte found beside the story, a matte that is
/// no picture refused before anything is written.
@Suite("Luma wipes from the command line")
struct LumaCLITests {
    @Test("a story's cut with a matte beside the story renders from another folder; the frames follow the matte")
    func storyMatte() throws {
        let folder = temporaryFolder()
        let story = folder.appendingPathComponent("story")
        try FileManager.default.createDirectory(at: story, withIntermediateDirectories: true)
        _ = try makeClip("black.png", "color=c=black:s=64x64", ["-frames:v", "1"], in: story)
        _ = try makeClip("white.png", "color=c=white:s=64x64", ["-frames:v", "1"], in: story)
        // Dark at the top, light at the bottom: the white page comes down from the top.
        _ = try makeClip("down.png", "gradients=s=64x64:c0=black:c1=white:x0=0:y0=0:x1=0:y1=63:nb_colors=2", ["-frames:v", "1"], in: story)
        try """
            preset: crossfade
            set: {canvas.size: [40, 80], canvas.scale: 0.25, hold: 0.1}
            slides:
              - {image: black.png, transition: {kind: luma, matte: down.png, softness: 0, duration: 1, curve: linear}}
              - {image: white.png}
            """.write(to: story.appendingPathComponent("wipe.yaml"), atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("frames").path
        let elsewhere = temporaryFolder()
        let r = try run(segueBinary, ["render", "--story", story.appendingPathComponent("wipe.yaml").path, "--frames", "18", "-o", out], in: elsewhere)
        #expect(r.status == 0, "\(r.stderr)")
        // Frame 18: 0.5 s into the 1 s wipe (after 3 frames of hold): the upper half white, the lower black.
        let raw = folder.appendingPathComponent("frame.rgba").path
        let decoded = try tool("ffmpeg", ["-v", "error", "-y", "-i", out + "/frame-00018.png", "-f", "rawvideo", "-pix_fmt", "rgba", raw])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let frame = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        try #require(frame.count == 40 * 80 * 4)
        func red(_ x: Int, _ y: Int) -> UInt8 { frame[(y * 40 + x) * 4] }
        #expect(red(20, 10) == 255 && red(20, 30) == 255 && red(20, 50) == 0 && red(20, 70) == 0, "\(red(20, 10)) \(red(20, 30)) \(red(20, 50)) \(red(20, 70))")
    }

    @Test("a matte that is not a picture or clip: exit 2 naming the file, nothing written; a missing one names the key")
    func badMatte() throws {
        let folder = temporaryFolder()
        let notes = folder.appendingPathComponent("notes.txt")
        try "not a picture".write(to: notes, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out.mp4").path
        let r = try segue(["render", "--preset", "crossfade", "--set", "transition.kind=luma", "--set", "transition.matte=\(notes.path)",
                           example("a.jpg"), example("b.png"), "-o", out])
        #expect(r.status == 2 && r.stderr.contains("notes.txt") && r.stderr.contains("matte"), "\(r.status) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let missing = try segue(["render", "--preset", "crossfade", "--set", "transition.kind=luma", "--set", "transition.matte=nowhere.png",
                                 example("a.jpg"), example("b.png"), "-o", out])
        #expect(missing.status == 2 && missing.stderr.contains("transition.matte") && missing.stderr.contains("nowhere.png"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
