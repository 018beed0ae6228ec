import Foundation
import Testing

/// Hostile and odd inputs found by an attacker's and a pipeline's tries: a clip damaged in its
/// middle, devices and FIFOs where files belong, ranges past any video, presets named bare.
@Suite("Hostile input: damaged clips, devices, FIFOs, huge ranges")
struct HostileInputTests {
    let small = ["--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.2"]

    /// An H.264 clip with every 997th byte of 200 KB in its middle flipped, as a disk or a
    /// network damages a file: FFmpeg's decoder says "corrupted macroblock" and conceals.
    static func damagedClip(in folder: URL) throws -> String {
        let path = try ffmpegMake("whole.mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=6", "-c:v", "libx264", "-preset", "ultrafast",
                                                "-g", "300", "-pix_fmt", "yuv420p"], in: folder)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let start = bytes.count / 3
        for k in stride(from: start, to: min(bytes.count - 1024, start + 200_000), by: 997) { bytes[k] ^= 0xFF }
        let damaged = folder.appendingPathComponent("damaged.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        return damaged
    }

    @Test("a clip damaged in its middle is an error naming the clip and the time, exit 1, nothing written (FFmpeg conceals it; Segue does not)")
    func damagedClip() throws {
        let folder = temporaryFolder()
        let clip = try Self.damagedClip(in: folder)
        let out = folder.appendingPathComponent("out.mp4").path
        let r = try segue(["render", example("a.jpg"), clip, example("b.png"), "-o", out] + small)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("damaged.mp4: cannot read the clip: the clip is damaged at"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(files(in: folder.path) == ["damaged.mp4", "whole.mp4"])
        // The clip it was made from plays whole.
        let whole = try segue(["render", example("a.jpg"), folder.appendingPathComponent("whole.mp4").path, "-o", out] + small)
        #expect(whole.status == 0, "\(whole.stderr)")
    }

    @Test("--force replaces files only: a device node or a FIFO at the output is refused (exit 2) and left as it is")
    func devicesAtTheOutput() throws {
        let folder = temporaryFolder()
        let device = folder.appendingPathComponent("full.mp4").path, fifo = folder.appendingPathComponent("pipe.mp4").path
        // /dev/full (major 1, minor 7), as makedev packs it.
        #expect(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0, "mknod: \(String(cString: strerror(errno)))")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (target, what) in [(device, "a character device"), (fifo, "a FIFO (a named pipe)")] {
            let r = try segue(["render", example("a.jpg"), example("b.png"), "-o", target, "--force"] + small)
            #expect(r.status == 2, "\(target): \(r.stderr)")
            #expect(r.stderr.contains("\(target): is \(what), not a file; Segue writes its output to a file"), "\(r.stderr)")
            var info = stat()
            #expect(lstat(target, &info) == 0 && info.st_mode & S_IFMT != S_IFREG, "\(target) was replaced")
        }
        #expect(files(in: folder.path) == ["full.mp4", "pipe.mp4"])
    }

    @Test("/dev/zero, a link to it and a FIFO as inputs are refused at once, naming what they are; nothing hangs")
    func inputsThatNeverEnd() throws {
        let folder = temporaryFolder()
        let fifo = folder.appendingPathComponent("photo.jpg").path, link = folder.appendingPathComponent("zero.jpg").path
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        let loop = folder.appendingPathComponent("loop.jpg").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        let music = folder.appendingPathComponent("music.m4a").path, captions = folder.appendingPathComponent("talk.srt").path
        #expect(mkfifo(music, 0o644) == 0 && mkfifo(captions, 0o644) == 0)
        let out = folder.appendingPathComponent("out.mp4").path
        for (input, what) in [("/dev/zero", "a character device"), (link, "a character device"), (fifo, "a FIFO (a named pipe)"),
                              (loop, "a loop of symbolic links")] {
            // measured's timeout bounds a hang; a refusal comes at once.
            let (r, _) = try measured(["render", example("a.jpg"), input, "-o", out] + small, timeout: 30)
            #expect(r.status == 2, "\(input): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("\(input): is \(what), not a file"), "\(r.stderr)")
        }
        let (audio, _) = try measured(["render", example("a.jpg"), "--audio", music, "-o", out] + small, timeout: 30)
        #expect(audio.status != 0 && audio.stderr.contains("a FIFO (a named pipe)"), "\(audio.status) \(audio.stderr)")
        let story = folder.appendingPathComponent("story.yaml").path
        try "slides: [{image: \(example("a.jpg"))}]\ncaptions: talk.srt\n".write(toFile: story, atomically: true, encoding: .utf8)
        let (cues, _) = try measured(["render", "--story", story, "-o", out] + small, timeout: 30)
        #expect(cues.status != 0 && cues.stderr.contains("a FIFO (a named pipe)"), "\(cues.status) \(cues.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--frames with a range to Int.max is checked against the video's frames, not counted: exit 2, no crash")
    func hugeRange() throws {
        let out = temporaryFolder().appendingPathComponent("frames").path
        let r = try segue(["render", example("a.jpg"), "--frames", "0-9223372036854775807", "-o", out + ".framemd5"] + small)
        #expect(r.status == 2, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("0-9223372036854775807"), "\(r.stderr)")
    }

    @Test("a preset named by its bare file name extends a preset beside it, and a cycle through bare names is found")
    func bareExtends() throws {
        let folder = temporaryFolder()
        try "extends: base.yaml\nhold: 0.3\n".write(to: folder.appendingPathComponent("brand.yaml"), atomically: true, encoding: .utf8)
        try "extends: crossfade\ncanvas: {size: [90, 160], scale: 0.25}\n".write(to: folder.appendingPathComponent("base.yaml"), atomically: true, encoding: .utf8)
        let shown = try run(segueBinary, ["presets", "show", "brand.yaml"], in: folder)
        #expect(shown.status == 0 && shown.stdout.contains("kind: crossfade"), "\(shown.stderr)")
        let rendered = try run(segueBinary, ["render", "--preset", "brand.yaml", example("a.jpg"), "-o", "a.mp4"], in: folder)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        try "extends: brand.yaml\n".write(to: folder.appendingPathComponent("base.yaml"), atomically: true, encoding: .utf8)
        let cycle = try run(segueBinary, ["presets", "show", "brand.yaml"], in: folder)
        #expect(cycle.status == 2 && cycle.stderr.contains("a preset that does not extend itself"), "\(cycle.stderr)")
    }

    @Test("-o \"\" is a usage error (exit 2) saying what is expected")
    func emptyOutput() throws {
        let r = try segue(["render", example("a.jpg"), "-o", ""] + small)
        #expect(r.status == 2 && r.stderr.contains("-o: an empty path"), "\(r.stderr)")
    }

    @Test("a GLSL file over 256 KiB is refused before it is compiled, naming the limit")
    func hugeGLSL() throws {
        let folder = temporaryFolder()
        let glsl = folder.appendingPathComponent("big.glsl").path
        let body = "vec4 transition(vec2 uv) { return mix(getFromColor(uv), getToColor(uv), progress); }\n"
        try (String(repeating: "// padding padding padding padding padding padding padding\n", count: 5_000) + body)
            .write(toFile: glsl, atomically: true, encoding: .utf8)
        let (r, _) = try measured(["render", "--preset", "crossfade", "--set", "transition.kind=glsl", "--set", "transition.file=\(glsl)",
                                   example("a.jpg"), example("b.png"), "-o", folder.appendingPathComponent("g.mp4").path] + small, timeout: 60)
        #expect(r.status == 2, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("over the limit of 262144 for a GLSL file"), "\(r.stderr)")
    }

    @Test("a killed run's temporary file and its parts (a sound chunk's .part-1-of-2) are removed by the next run for that output; a live one's are kept")
    func staleParts() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("v.mp4").path
        // A process that is gone: the largest PID Linux gives is below 2^22.
        let dead = ".v.mp4.segue-tmp-4194303", live = ".v.mp4.segue-tmp-\(getpid()).part-1-of-2"
        for name in [dead, dead + ".part-1-of-2", dead + ".part-2-of-2", live, ".v.mp4.segue-tmp-12x"] {
            try "left".write(toFile: folder.appendingPathComponent(name).path, atomically: true, encoding: .utf8)
        }
        let r = try segue(["render", example("a.jpg"), "-o", out] + small)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(files(in: folder.path) == [live, ".v.mp4.segue-tmp-12x", "v.mp4"].sorted(), "\(files(in: folder.path))")
    }
}
