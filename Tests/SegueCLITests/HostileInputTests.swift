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

    /// Starts `arguments` in `folder`, waits (a bound on a hang) until `appears` holds a
    /// file, signals it a second later, and gives how it ended: nil if it had not ended 30 s
    /// after the signal (then killed).
    func signalled(_ arguments: [String], in folder: URL, watching appears: URL, with signal: Int32,
                   environment: [String: String] = [:]) throws -> (status: Int32, stderr: String)? {
        let render = try Launched(segueBinary, arguments, in: folder, environment: environment)
        // At most 3,000 looks 20 ms apart: a bound on a hang, not a measure.
        for _ in 0..<3_000 where files(in: appears.path).isEmpty && render.process.isRunning { usleep(20_000) }
        usleep(1_000_000)
        kill(render.process.processIdentifier, signal)
        return render.finish(polls: 1_500)
    }

    @Test("SIGTERM in the middle of a GLSL frame that would take minutes ends the render with 143 at once, not at SEGUE_GLSL_TIMEOUT; nothing is left")
    func signalInAGLSLFrame() throws {
        let folder = temporaryFolder()
        try "vec4 transition(vec2 uv) {\n  float x = 0.0;\n  for (int i = 0; i < 100000; i++) { for (int j = 0; j < 100000; j++) { x += sin(float(j) + uv.x); } }\n  return vec4(x);\n}\n"
            .write(to: folder.appendingPathComponent("slow.glsl"), atomically: true, encoding: .utf8)
        let ended = try signalled(["render", "--preset", "crossfade", "--set", "transition.kind=glsl", "--set", "transition.file=slow.glsl",
                                   "--set", "hold=0.2", "--size", "64x64", "--set", "canvas.scale=0.25", example("a.jpg"), example("b.png"), "-o", "out.mp4"],
                                  in: folder, watching: folder, with: SIGTERM, environment: ["SEGUE_GLSL_TIMEOUT": "600"])
        let (status, stderr) = try #require(ended, "still running 30 s after SIGTERM")
        #expect(status == 143, "\(stderr)")
        #expect(files(in: folder.path) == ["slow.glsl"], "\(files(in: folder.path))")
    }

    @Test("SIGINT while --chunk sound mixes a 20-minute soundtrack stops it with 130, its parts and temporary file removed")
    func signalInASoundChunk() throws {
        let folder = temporaryFolder()
        let music = try ffmpegMake("music.wav", ["-f", "lavfi", "-i", "sine=f=440:d=30", "-ac", "2"], in: folder)
        let chunks = folder.appendingPathComponent("long.mp4.chunks")
        let ended = try signalled(["render", "--set", "hold=600", "--set", "fps=5", "--size", "64x64", "--set", "canvas.scale=0.25",
                                   "--audio", music, example("a.jpg"), example("b.png"), "-o", "long.mp4", "--chunk", "sound"],
                                  in: folder, watching: chunks, with: SIGINT)
        let (status, stderr) = try #require(ended, "still running 30 s after SIGINT")
        #expect(status == 130, "\(stderr)")
        #expect(files(in: chunks.path).isEmpty, "left behind: \(files(in: chunks.path))")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("long.mp4").path))
    }

    @Test("messages say what is wrong and where: a NUL byte at its line, a sticker's declared size, a GLSL file's shape, an open Mustache section, a canvas over the encoders' largest picture")
    func messagesThatSayWhatIsWrong() throws {
        let folder = temporaryFolder()
        func write(_ name: String, _ text: String) throws { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        try write("nul.yaml", "slides:\n  - image: a.jpg\n  - {image: a.jpg\u{0}}\n")
        // A PNG whose header declares 100000x100000: FFmpeg gives no size for it.
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            func be(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return be(UInt32(data.count)) + body + be(~crc)
        }
        let ihdr: [UInt8] = [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0]
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IEND", []))
            .write(to: folder.appendingPathComponent("huge.png"))
        try write("sticker.yaml", "overlays:\n  - {image: huge.png}\nslides:\n  - image: a.jpg\n")
        try write("section.yaml", "vars: {name: Ana}\noverlays:\n  - {text: \"Hi {{#name}} there\"}\nslides:\n  - image: a.jpg\n")
        try write("empty.glsl", "\n\n")
        try write("version.glsl", "#version 330\nvec4 transition(vec2 uv) { return getToColor(uv); }\n")
        try write("nameless.glsl", "float f() { return 1.0; }\n")
        try write("open.glsl", "vec4 transition(vec2 uv) {\n  return getToColor(uv);\n")
        func render(_ arguments: [String]) throws -> Run {
            try run(segueBinary, ["render"] + arguments + ["-o", "out.mp4", "--size", "64x64", "--set", "canvas.scale=0.25", "--set", "hold=0.2"], in: folder)
        }
        func glsl(_ file: String) throws -> Run {
            try render(["--preset", "crossfade", "--set", "transition.kind=glsl", "--set", "transition.file=\(file)", "a.jpg", "a.jpg"])
        }
        let cases: [(Run, String)] = [
            (try render(["--story", "nul.yaml"]), "line 3, column 18: control characters are not allowed"),
            (try render(["--story", "sticker.yaml"]), "its header declares 100000x100000 pixels"),
            (try render(["--story", "section.yaml"]), "a section {{#name}} is not closed with {{/name}}"),
            (try glsl("empty.glsl"), "empty.glsl is empty"),
            (try glsl("version.glsl"), "version.glsl:1: a #version line"),
            (try glsl("nameless.glsl"), "nameless.glsl defines no transition function"),
            (try glsl("open.glsl"), "open.glsl: after its last line"),
            (try run(segueBinary, ["render", "a.jpg", "-o", "out.mp4", "--size", "16384x16384"], in: folder), "'canvas.size' is [16384, 16384] (expected at most 35651584 pixels"),
        ]
        for (r, message) in cases {
            #expect(r.status == 2 && r.stderr.contains(message), "\(message): \(r.status) \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
    }

    @Test("an error about a long text quotes only its start and says its length")
    func longValuesQuotedShort() throws {
        let folder = temporaryFolder()
        let word = String(repeating: "x", count: 20_000)
        try "vars: {name: Ana}\noverlays:\n  - {text: \"{{#name}}\(word)\"}\nslides:\n  - image: \(example("a.jpg"))\n"
            .write(to: folder.appendingPathComponent("long.yaml"), atomically: true, encoding: .utf8)
        let r = try run(segueBinary, ["render", "--story", "long.yaml", "-o", "out.mp4"], in: folder)
        #expect(r.status == 2 && r.stderr.contains("(20009 characters)"), "\(r.stderr.prefix(400))")
        #expect(r.stderr.utf8.count < 1_000, "\(r.stderr.utf8.count) bytes of message")
    }

    @Test("a text or cue over the stated limits (100,000 characters, a word of 1,000) is refused up front, exit 2, nothing written; one at the limits renders")
    func textLimits() throws {
        let folder = temporaryFolder()
        func story(_ text: String) throws -> Run {
            try "overlays:\n  - {text: \"\(text)\", size: 2}\nslides:\n  - image: \(example("a.jpg"))\n"
                .write(to: folder.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
            return try run(segueBinary, ["render", "--story", "s.yaml", "-o", "out.mp4"] + small, in: folder)
        }
        let longWord = try story(String(repeating: "x", count: 1_001))
        #expect(longWord.status == 2 && longWord.stderr.contains("words of at most 1000 characters without a space (one has 1001)"), "\(longWord.stderr)")
        let longText = try story(Array(repeating: "word", count: 20_001).joined(separator: " "))
        #expect(longText.status == 2 && longText.stderr.contains("a text of at most 100000 characters (it has 100004)"), "\(longText.stderr.prefix(300))")
        let atTheLimit = try story(String(repeating: "x", count: 1_000))
        #expect(atTheLimit.status == 0, "\(atTheLimit.stderr)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("out.mp4"))
        let cli = try run(segueBinary, ["render", example("a.jpg"), "--text", String(repeating: "y", count: 5_000), "-o", "out.mp4"] + small, in: folder)
        #expect(cli.status == 2 && cli.stderr.contains("one has 5000"), "\(cli.stderr.prefix(300))")
        try "1\n00:00:00,000 --> 00:00:01,000\n\(String(repeating: "z", count: 2_000))\n\n".write(to: folder.appendingPathComponent("c.srt"), atomically: true, encoding: .utf8)
        try "captions: c.srt\nslides:\n  - image: \(example("a.jpg"))\n".write(to: folder.appendingPathComponent("c.yaml"), atomically: true, encoding: .utf8)
        let cue = try run(segueBinary, ["render", "--story", "c.yaml", "-o", "out.mp4"] + small, in: folder)
        #expect(cue.status == 2 && cue.stderr.contains("c.srt, line 2: the cue") && cue.stderr.contains("one has 2000"), "\(cue.stderr.prefix(400))")
        #expect(files(in: folder.path) == ["c.srt", "c.yaml", "s.yaml"])
    }

    @Test("a 10-minute clip as a luma matte is refused from its header (its 18000 frames over the matte's 1 GiB), before a frame is decoded; exit 2")
    func longMatteRefusedFromItsHeader() throws {
        let folder = temporaryFolder()
        let matte = try ffmpegMake("matte.mp4", ["-f", "lavfi", "-i", "color=gray:s=320x240:r=30:d=600", "-c:v", "libx264", "-preset", "ultrafast",
                                                 "-pix_fmt", "yuv420p"], in: folder)
        let r = try run(segueBinary, ["render", "--preset", "crossfade", "--set", "transition.kind=luma", "--set", "transition.matte=\(matte)",
                                      example("a.jpg"), example("b.png"), "-o", "out.mp4"] + small, in: folder)
        #expect(r.status == 2 && r.stderr.contains("would keep its 18000 frames of 320x240 (600.0 s at 30 fps), over 1024 MiB"), "\(r.stderr)")
        #expect(files(in: folder.path) == ["matte.mp4"])
    }

    @Test("a dry run's memory grows by well under a kilobyte a row (it was 3.7 KB): rows keep their values, not their stories, and no job is kept")
    func rowsPlanInLittleMemory() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        try """
            vars: {name: ~}
            preset: crossfade
            set: {canvas.size: [90, 160], hold: 1}
            overlays: [{text: "Welcome, {{name}}", at: [0.5, 0.8]}]
            slides: [{image: a.jpg, motion: in}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        var peaks: [Int: Int] = [:]
        // 40,000 rows apart: what a process's size varies by from run to run (its threads'
        // heaps, measured up to 9 MB) is well under what the rows would take at a kilobyte.
        for count in [5_000, 45_000] {
            let rows = folder.appendingPathComponent("rows\(count).csv").path
            try ("id,name\n" + (0..<count).map { "r\($0),Person \($0)\n" }.joined()).write(toFile: rows, atomically: true, encoding: .utf8)
            let (r, peak) = try measured(["batch", "--template", folder.appendingPathComponent("card.yaml").path, "--data", rows,
                                          "-o", folder.appendingPathComponent("out/{{id}}.mp4").path, "--dry-run", "--quiet"], timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            peaks[count] = peak
        }
        // Megabytes for 40,000 more rows: under 1,000 bytes a row is under 40 MB.
        let grown = peaks[45_000]! - peaks[5_000]!
        #expect(grown < 40, "\(peaks): \(grown) MB more for 40,000 more rows")
    }
}
