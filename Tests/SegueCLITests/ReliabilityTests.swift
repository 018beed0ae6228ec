import Foundation
import Testing

/// Runs segue under a fresh python3 so that its peak memory can be read alone (RUSAGE_CHILDREN
/// of a process whose only child it is). Returns the run and the peak RSS in MB.
func measured(_ arguments: [String], timeout: Double = 30) throws -> (Run, Int) {
    let script = """
        import resource, subprocess, sys
        try:
            p = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=\(timeout))
            code, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            code, err = 999, "timed out"
        sys.stdout.write(str(code) + " " + str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024) + "\\n" + err)
        """
    let r = try tool("python3", ["-c", script, segueBinary] + arguments)
    let head = r.stdout.prefix { $0 != "\n" }.split(separator: " ").compactMap { Int($0) }
    let stderr = String(r.stdout.drop { $0 != "\n" }.dropFirst())
    return (Run(status: Int32(head.first ?? -1), stdout: "", stderr: stderr), head.last ?? -1)
}

@Suite("Reliability: hostile input, faults, determinism")
struct ReliabilityTests {
    let small = ["--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.3"]

    @Test("truncated, flipped, empty and fake images: an error naming the file, exit 1 for a damaged picture and 2 for no picture, nothing written")
    func corruptImages() throws {
        let folder = temporaryFolder()
        var cases: [String] = []
        for name in ["a.jpg", "b.png", "c.webp"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: example(name)))
            for percent in [25, 50, 90] {
                let path = folder.appendingPathComponent("cut\(percent)-\(name)").path
                try data.prefix(data.count * percent / 100).write(to: URL(fileURLWithPath: path))
                cases.append(path)
            }
        }
        for name in ["a.jpg", "b.png"] {   // formats with checks on their data (lossy WebP has none: see README)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: example(name))))
            var seed: UInt64 = 7
            for _ in 0..<20 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let at = bytes.count / 4 + Int(seed >> 33) % (bytes.count * 3 / 4)
                bytes[at] ^= 0xFF
            }
            let path = folder.appendingPathComponent("flipped-\(name)").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            cases.append(path)
        }
        let text = folder.appendingPathComponent("letter.jpg").path
        try "Dear reader, this is not a photo.".write(toFile: text, atomically: true, encoding: .utf8)
        let empty = folder.appendingPathComponent("empty.png").path
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        cases += [text, empty]

        let out = folder.appendingPathComponent("out.mp4").path
        for input in cases {
            let r = try segue(["render", example("a.jpg"), input, "-o", out] + small)
            // A damaged picture of a kind Segue reads fails while exporting (1); what is no
            // picture at all is an unsupported input (2), as the README's exit codes say.
            let notAPicture = input == text || input == empty
            #expect(r.status == (notAPicture ? 2 : 1), "\(input): exit \(r.status)")
            #expect(r.stderr.contains(input + ":"), "\(input): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(!files(in: folder.path).contains { $0.contains("segue-tmp") })
    }

    /// A PNG whose header claims `width` x `height`, with a few bytes of data.
    func pngBomb(_ width: Int, _ height: Int, at path: String) throws {
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count) + Array(type.utf8) + body + [0, 0, 0, 0] }
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0, 0, 0, 1, 0, 1]) + chunk("IEND", [])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("decompression bombs are refused from their header, with the size and the limit, in little memory")
    func bombs() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("out.mp4").path
        // A JPEG whose frame header claims 16000x16000.
        let tiny = folder.appendingPathComponent("tiny.jpg").path
        _ = try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:s=16x16", "-frames:v", "1", tiny])
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: tiny)))
        let sof = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0x3E; jpeg[sof + 6] = 0x80; jpeg[sof + 7] = 0x3E; jpeg[sof + 8] = 0x80
        let jpegBomb = folder.appendingPathComponent("bomb.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: jpegBomb))
        let huge = folder.appendingPathComponent("huge.png").path, big = folder.appendingPathComponent("big.png").path
        try pngBomb(100_000, 100_000, at: huge)
        try pngBomb(16_000, 16_000, at: big)
        // Over the fixed side limit, raising the pixel limit would not help: the message says only the side.
        let side = "over the limit of 16384 pixels a side\n"
        let pixels = "over the limit of 33554432 pixels in all (raise it with --max-image-pixels)"
        for (path, size, limit) in [(huge, "100000x100000", side), (big, "16000x16000", pixels), (jpegBomb, "16000x16000", pixels)] {
            let (r, peak) = try measured(["render", path, "-o", out] + small)
            #expect(r.status == 2, "\(path): \(r.stderr)")
            #expect(r.stderr.contains("\(path): the image is \(size), \(limit)"), "\(r.stderr)")
            #expect(peak > 0 && peak < 100, "peak \(peak) MB")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("hostile YAML: alias bombs, deep nesting, huge files and wrong types fail fast with the line")
    func hostileYAML() throws {
        let folder = temporaryFolder()
        var bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for i in 1..<10 {
            let name = String(UnicodeScalar(UInt8(97 + i))), previous = String(UnicodeScalar(UInt8(96 + i)))
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
        }
        let cases: [(String, String, String)] = [
            ("bomb.yaml", bomb, "line 1: '(YAML)' is an anchor or alias"),
            ("deep.yaml", "a: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n", "line 1: '(YAML)' is nested more than 64 levels deep"),
            ("huge.yaml", "description: " + String(repeating: "x", count: 2 << 20) + "\n", "over the limit of 1048576 for a preset"),
            ("types.yaml", "fps: [1, 2]\ntransition: {kind: slide}\n", "line 1: 'fps' is a list (expected a single value)"),
        ]
        for (name, text, message) in cases {
            let path = folder.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            // Fast enough is within the bound on a hang (measured's timeout), and in memory.
            let (r, peak) = try measured(["presets", "show", path], timeout: 10)
            #expect(r.status == 2, "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(message), "\(name): \(r.stderr)")
            #expect(peak < 200, "\(name): \(peak) MB")
        }
    }

    @Test("a job that would run for days is refused up front unless the budget is raised")
    func budget() throws {
        let out = temporaryFolder().appendingPathComponent("8k.mp4").path
        let r = try segue("render", "--size", "7680x4320", "--set", "hold=333", example("a.jpg"), "-o", out)
        #expect(r.status == 2 && r.stderr.contains("this job would compose 9990 frames of 7680x4320, over the budget of 200000000000 pixel-frames"))
        let tight = try segue(["render", "--max-pixel-frames", "1000", example("a.jpg"), "-o", out] + small)
        #expect(tight.status == 2 && tight.stderr.contains("over the budget of 1000 pixel-frames"))
        let raised = try segue(["render", "--max-pixel-frames", "1e12", example("a.jpg"), "-o", out] + small)
        #expect(raised.status == 0, "\(raised.stderr)")
    }

    @Test("an unwritable place or a folder in the way: an error naming the path, nothing left behind")
    func faults() throws {
        let folder = temporaryFolder()
        let unwritable = try segue(["render", example("a.jpg"), "-o", "/proc/segue-cannot-write/out.mp4"] + small)
        #expect(unwritable.status == 1 && unwritable.stderr.contains("/proc/segue-cannot-write/out.mp4: cannot write"), "\(unwritable.stderr)")
        let inTheWay = folder.appendingPathComponent("video.mp4")
        try FileManager.default.createDirectory(at: inTheWay.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let r = try segue(["render", "--force", example("a.jpg"), "-o", inTheWay.path] + small)
        #expect(r.status == 2 && r.stderr.contains("\(inTheWay.path): is a folder; mp4 output goes to a file"), "\(r.stderr)")
        #expect(files(in: folder.path) == ["video.mp4"])
    }

    @Test("a full disk: an error naming the path and the cause, no partial file",
          .enabled(if: Privileges.canMountTmpfs, "needs root where a tmpfs may be mounted"))
    func fullDisk() throws {
        let mountPoint = temporaryFolder()
        let mount = try tool("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", mountPoint.path])
        try #require(mount.status == 0, "\(mount.stderr)")
        defer { _ = try? tool("umount", [mountPoint.path]) }
        // Each kind of output: an MP4, a folder of PNG frames, framemd5 checksums (long enough
        // to fill 16 KiB), and the same with --resume, which also keeps a fingerprint.
        let outputs: [(String, [String])] = [
            ("video.mp4", []), ("frames", []), ("sums.framemd5", ["--set", "hold=30"]), ("again.framemd5", ["--set", "hold=30", "--resume"]),
        ]
        for (name, extra) in outputs {
            let out = mountPoint.appendingPathComponent(name).path
            let r = try segue(["render", example("a.jpg"), example("b.png"), "-o", out, "--size", "360x640", "--set", "canvas.scale=1"] + extra)
            #expect(r.status == 1 && r.stderr.contains(out) && r.stderr.contains("No space left on device"), "\(name): \(r.stderr)")
            #expect(files(in: mountPoint.path).isEmpty, "\(name): left \(files(in: mountPoint.path))")
        }
    }

    @Test("the same job gives the same MP4 bytes on every run, and the same checksums for 1, 2 and 8 threads")
    func determinism() throws {
        let folder = temporaryFolder()
        var videos: [Data] = []
        for i in 0..<2 {
            let out = folder.appendingPathComponent("v\(i).mp4").path
            let r = try segue(["render", "--preset", "stories-cube", example("a.jpg"), example("b.png"), "-o", out] + small)
            #expect(r.status == 0)
            videos.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(videos[0] == videos[1] && videos[0].count > 1000)
        let sums = try [1, 2, 8].map { try segue(["checksum", "--preset", "cube-fold", "--threads", "\($0)", example("a.jpg"), example("c.webp")] + small).stdout }
        #expect(sums[0] == sums[1] && sums[1] == sums[2] && sums[0].contains("#format: frame checksums"))
    }

    @Test("more threads compose more frames at once only up to a few: peak memory with 16 threads stays within a few frames of 2")
    func memoryWithThreads() throws {
        // framemd5 reads whole RGBA frames: 8 MB each at 1080x1920, one per frame in flight.
        var peaks: [Int: Int] = [:]
        for threads in [2, 16] {
            let (r, peak) = try measured(["render", "--preset", "crossfade", "--size", "1080x1920", "--set", "hold=0", "--set", "transition.duration=1",
                                          "--threads", "\(threads)", "--format", "framemd5", example("a.jpg"), example("b.png"), "-o", "-"], timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            peaks[threads] = peak
        }
        // At most two more frames in flight (four at once, not sixteen), and band buffers.
        #expect(peaks[16]! - peaks[2]! < 40, "peak \(peaks[2]!) MB with 2 threads, \(peaks[16]!) MB with 16")
    }

    /// `arguments` (a checksum) give the same frames with the widest vectors, AVX2 and none.
    private func sameAtEveryWidth(_ arguments: [String], _ what: String) throws {
        let widest = try segue(arguments)
        #expect(widest.status == 0, "\(widest.stderr)")
        #expect(widest.stdout.split(separator: "\n").count > 20, "\(what)")
        for cap in ["avx2", "none"] {
            let capped = try tool("env", ["SEGUE_SIMD=\(cap)", segueBinary] + arguments)
            #expect(capped.status == 0, "\(capped.stderr)")
            #expect(widest.stdout == capped.stdout, "\(what), SEGUE_SIMD=\(cap)")
        }
    }

    @Test("the vector kernels (AVX-512 or AVX2, where the CPU has them) give the same frames as the scalar ones (SEGUE_SIMD=avx2, =none)")
    func vectorKernels() throws {
        // Slide also pans (pictures moved whole texels apart) and zooms; crossfade fills with a
        // blurred backdrop (the box blur's columns, the magnification's rows).
        for preset in ["stories-cube", "telegram-cube", "flip", "cube-fold", "instagram-zoom", "slide", "crossfade"] {
            var arguments = ["checksum", "--preset", preset, "--size", "270x480", "--set", "canvas.scale=0.75", "--set", "hold=0",
                             example("a.jpg"), example("b.png"), example("c.webp")]
            if preset == "slide" { arguments += ["--set", "motion.kind=in", "--set", "hold=0.5"] }
            if preset == "crossfade" { arguments += ["--set", "fit=blur", "--set", "motion.kind=left", "--set", "hold=0.3"] }
            try sameAtEveryWidth(arguments, preset)
        }
        // The gl-transitions ports' C kernels: the warp's (its samples worked out ahead in
        // intrinsics at AVX-512, texel runs, NaN outside), the sums' (two pages over a floor),
        // the page curl's, and the many-sample blurs'.
        for kind in ["gl:Swirl", "gl:kaleidoscope", "gl:ripple", "gl:rotate_scale_fade", "gl:Dreamy", "gl:swap", "gl:doorway",
                     "gl:InvertedPageCurl", "gl:CrossZoom", "gl:FilmBurn"] {
            try sameAtEveryWidth(["checksum", "--preset", "crossfade", "--size", "270x480", "--set", "hold=0", "--set", "transition.kind=\(kind)",
                                  example("a.jpg"), example("b.png"), example("c.webp")], kind)
        }
        let legacy = try tool("env", ["SEGUE_NO_SIMD=1", segueBinary, "checksum", "--preset", "flip", "--size", "90x160", example("a.jpg"), example("b.png")])
        let flip = try segue(["checksum", "--preset", "flip", "--size", "90x160", example("a.jpg"), example("b.png")])
        #expect(legacy.status == 0 && legacy.stdout == flip.stdout)
    }

    @Test("a 1080x1920 MP4 with still holds is the same bytes whatever the compositor's speed (1 or 2 threads), run after run")
    func encoderTiming() throws {
        // Still holds reach the encoder at once, composed frames slowly: the encoder's
        // decisions must not depend on how many frames have arrived (x264's threaded lookahead).
        let folder = temporaryFolder()
        var digests: Set<Data> = []
        for threads in [1, 2, 1, 2, 1, 2] {
            let out = folder.appendingPathComponent("t.mp4").path
            let r = try segue(["render", "--force", "--threads", "\(threads)", "--size", "1080x1920", "--set", "hold=1",
                               example("a.jpg"), example("b.png"), example("c.webp"), "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            digests.insert(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(digests.count == 1, "\(digests.count) different files from one job")
    }

    @Test("fuzzing: mutated images, presets, manifests, stories, captions, GLSL files and template rows never crash, hang or run away with memory; a failed render leaves nothing")
    func fuzz() throws {
        let iterations = Int(ProcessInfo.processInfo.environment["SEGUE_FUZZ_ITERATIONS"] ?? "") ?? 8
        let folder = temporaryFolder()
        var seed: UInt64 = UInt64(ProcessInfo.processInfo.environment["SEGUE_FUZZ_SEED"] ?? "") ?? 1
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        func mutate(_ data: [UInt8]) -> [UInt8] {
            var bytes = data
            for _ in 0..<(1 + next() % 8) {
                guard !bytes.isEmpty else { break }
                switch next() % 4 {
                case 0: bytes[next() % bytes.count] ^= UInt8(1 << (next() % 8))
                case 1: bytes[next() % bytes.count] = UInt8(next() % 256)
                case 2: bytes.removeSubrange((next() % bytes.count)..<bytes.count)
                default: let at = next() % bytes.count; bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + next() % 64)], at: at)
                }
            }
            return bytes
        }
        let images = try ["a.jpg", "b.png", "c.webp"].map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: example($0)))) }
        let preset = [UInt8](try Data(contentsOf: repositoryRoot.appendingPathComponent("Presets/telegram-cube.yaml")))
        let manifest = Array("jobs:\n  - preset: slide\n    set: {hold: 0.2}\n    inputs: [\(example("a.jpg")), \(example("b.png"))]\n    output: out.mp4\n".utf8)
        // A story with captions, a GLSL transition, a template and its rows, each mutated too.
        let story = Array("""
            preset: crossfade
            set: {hold: 0.3}
            captions: {file: CAPTIONS, words: highlight}
            overlays:
              - {text: "Hello <b>there</b>", markup: true, in: typewriter}
            slides:
              - {image: \(example("a.jpg")), motion: in}
              - {image: \(example("b.png")), transition: {kind: wipeleft, duration: 0.2}}

            """.utf8)
        let captions = [Array("1\n00:00:00,000 --> 00:00:00,500\nfirst <i>cue</i> here\n\n2\n00:00:00,400 --> 00:00:01,000\nsecond one\n\n".utf8),
                        Array("WEBVTT\n\n00:00.000 --> 00:00.800\n<00:00.100>one <00:00.300>two <00:00.500>three\n\n".utf8)]
        let shader = Array("uniform float amount; // = 0.5\nvec4 transition(vec2 uv) {\n  float m = step(uv.x, progress * (1.0 + amount));\n  return mix(getFromColor(uv), getToColor(uv), m);\n}\n".utf8)
        let template = Array("vars: {name: Ana, photo: \(example("a.jpg"))}\npreset: slide\nset: {hold: 0.2}\noverlays: [{text: \"Hi {{name}}\"}]\nslides: [{image: \"{{photo}}\"}]\n".utf8)
        let rows = [Array("id,name,photo\nr1,\"Ana, B\",\(example("a.jpg"))\nr2,Bo,\(example("b.png"))\n".utf8),
                    Array("{\"id\": \"r1\", \"name\": \"Ana\", \"photo\": \"\(example("a.jpg"))\"}\n{\"id\": \"r2\", \"name\": \"Bo\", \"photo\": \"\(example("b.png"))\"}\n".utf8)]
        for i in 0..<iterations {
            let captionPath = folder.appendingPathComponent("c\(i).\(i % 2 == 0 ? "srt" : "vtt")").path
            try Data(mutate(captions[i % 2])).write(to: URL(fileURLWithPath: captionPath))
            let storyPath = folder.appendingPathComponent("s\(i).yaml").path
            let storyText = String(decoding: story, as: UTF8.self).replacingOccurrences(of: "CAPTIONS", with: captionPath)
            try Data(mutate(Array(storyText.utf8))).write(to: URL(fileURLWithPath: storyPath))
            let shaderPath = folder.appendingPathComponent("t\(i).glsl").path
            try Data(mutate(shader)).write(to: URL(fileURLWithPath: shaderPath))
            let templatePath = folder.appendingPathComponent("card\(i).yaml").path
            try Data(mutate(template)).write(to: URL(fileURLWithPath: templatePath))
            let rowsPath = folder.appendingPathComponent("rows\(i).\(i % 2 == 0 ? "csv" : "jsonl")").path
            try Data(mutate(rows[i % 2])).write(to: URL(fileURLWithPath: rowsPath))
            let image = folder.appendingPathComponent("in\(i).\(["jpg", "png", "webp"][i % 3])").path
            try Data(mutate(images[i % 3])).write(to: URL(fileURLWithPath: image))
            let presetPath = folder.appendingPathComponent("p\(i).yaml").path
            try Data(mutate(preset)).write(to: URL(fileURLWithPath: presetPath))
            let manifestPath = folder.appendingPathComponent("m\(i).yaml").path
            try Data(mutate(manifest)).write(to: URL(fileURLWithPath: manifestPath))
            let output = { (name: String) in folder.appendingPathComponent("\(name)\(i).mp4").path }
            let runs: [(arguments: [String], output: String?)] = [
                (["render", image, example("b.png"), "-o", output("o")] + small, output("o")),
                (["checksum", "--preset", presetPath, example("a.jpg"), example("b.png")] + small, nil),
                (["batch", manifestPath, "--quiet"] + small, nil),
                (["render", "--story", storyPath, "-o", output("story")] + small, output("story")),
                (["render", "--preset", "crossfade", "--set", "transition.kind=glsl", "--set", "transition.file=\(shaderPath)",
                  example("a.jpg"), example("b.png"), "-o", output("glsl")] + small, output("glsl")),
                (["batch", "--template", templatePath, "--data", rowsPath, "-o", folder.appendingPathComponent("rows\(i)/{{id}}.mp4").path,
                  "--dry-run", "--quiet"] + small, nil),
            ]
            for (arguments, written) in runs {
                let (r, peak) = try measured(arguments, timeout: 10)
                #expect([0, 1, 2].contains(r.status), "seed \(seed), iteration \(i): \(arguments) exit \(r.status): \(r.stderr)")
                #expect(peak < 512, "iteration \(i): \(peak) MB")
                // A run that failed leaves nothing at its output.
                if let written, r.status != 0 {
                    #expect(!FileManager.default.fileExists(atPath: written), "iteration \(i): \(arguments) exit \(r.status) left \(written)")
                }
            }
        }
    }
}
