import Foundation
import Testing

/// Small renders: 90x160 pixels, short holds.
let small = ["--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.3"]

func frameCount(_ mp4: String) throws -> Int? {
    let probe = try tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                      "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", mp4])
    return Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
}

@Suite("segue batch")
struct BatchCLITests {
    /// A manifest of ten jobs; job 4 reads a damaged image (a PNG cut in half), which only
    /// decoding finds; `broken` adds a missing input to job 2 and an unknown key to job 8,
    /// which checking the manifest finds.
    func tenJobs(in folder: URL, broken: Bool = false) throws -> String {
        let damaged = folder.appendingPathComponent("half.png").path
        let data = try Data(contentsOf: URL(fileURLWithPath: example("b.png")))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: damaged))
        var text = "jobs:\n"
        for i in 1...10 {
            let second = i == 4 ? damaged : (broken && i == 2 ? "missing.jpg" : example("b.png"))
            let set = broken && i == 8 ? "\n    set: {transition.perspectiv: 800}" : (i % 3 == 0 ? "\n    set: {transition.duration: 0.2}" : "")
            text += "  - name: job\(i)\n    preset: \(["stories-cube", "slide", "crossfade", "telegram-cube"][i % 4])\(set)\n    inputs: [\"\(example("a.jpg"))\", \"\(second)\"]\n    output: out/job\(i).mp4\n"
        }
        let path = folder.appendingPathComponent("manifest.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("every job is checked before the first runs: all problems with their lines, exit 2, nothing written")
    func brokenUpFront() throws {
        let folder = temporaryFolder()
        let manifest = try tenJobs(in: folder, broken: true)
        let r = try segue(["batch", manifest, "--jobs", "2"] + small)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("manifest \(manifest): 2 problems; no job was run"), "\(r.stderr)")
        #expect(r.stderr.contains("manifest \(manifest), line 6 (job 2, job2): \(folder.path)/missing.jpg: no such input file"), "\(r.stderr)")
        #expect(r.stderr.contains("manifest \(manifest), line 34: unknown key 'transition.perspectiv'. Did you mean 'perspective'?"), "\(r.stderr)")
        #expect(files(in: folder.appendingPathComponent("out").path).isEmpty)
        #expect(r.stdout.isEmpty)
    }

    @Test("a job that fails while rendering does not stop the others: 9 valid MP4s, a summary naming the failure, exit 1, a JSON report")
    func brokenJobs() throws {
        let folder = temporaryFolder()
        let manifest = try tenJobs(in: folder)
        let report = folder.appendingPathComponent("report.json").path
        let r = try segue(["batch", manifest, "--jobs", "2", "--report", report] + small)
        #expect(r.status == 1, "\(r.stderr)")
        let outputs = files(in: folder.appendingPathComponent("out").path)
        #expect(outputs == ["job1.mp4", "job10.mp4", "job2.mp4", "job3.mp4", "job5.mp4", "job6.mp4", "job7.mp4", "job8.mp4", "job9.mp4"])
        for name in outputs {
            let path = folder.appendingPathComponent("out/\(name)").path
            let probe = try tool("ffprobe", ["-v", "error", path])
            #expect(probe.status == 0 && probe.stderr.isEmpty, "\(name)")
            let count = try frameCount(path) ?? 0
            #expect(count > 0)
        }
        // The summary table on stdout names every job; the failure carries its reason.
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 11 && lines[0].hasPrefix("job"))
        let job4 = try #require(lines.first { $0.hasPrefix("4 job4") })
        #expect(job4.contains("failed") && job4.contains("half.png: cannot read the image"))
        #expect(lines.filter { $0.contains(" ok") }.count == 9)
        #expect(r.stderr.contains("job 4 (job4) failed"))

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
        #expect(json["succeeded"] as? Int == 9 && json["failed"] as? Int == 1 && json["skipped"] as? Int == 0)
        let jobs = json["jobs"] as! [[String: Any]]
        #expect(jobs.count == 10 && jobs.filter { $0["status"] as? String == "failed" }.compactMap { $0["job"] as? Int } == [4])
        #expect(jobs[0]["frames"] as? Int == 33) // 2 x 0.3 + 0.5 s at 30 fps
        // a.jpg is every job's and b.png nine jobs': each decoded once for the batch, two jobs at a time.
        let shared = try #require(json["shared"] as? [[String: Any]])
        let files = shared.compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(files == ["a.jpg", "b.png"] && shared.allSatisfy { $0["decoded"] as? Int == 1 && $0["kind"] as? String == "picture" }, "\(shared)")
        // Each job that renders uses a.jpg at least once (job 4 may fail before it does).
        #expect((shared.first?["uses"] as? Int ?? 0) >= 9, "\(shared)")
    }

    @Test("--jobs: auto by default (as the CPUs given allow), a number, or a clear error; the report says how many ran at once")
    func jobsAtOnce() throws {
        let folder = temporaryFolder()
        let manifest = try tenJobs(in: folder)
        func atOnce(_ arguments: [String], cpus: String?) throws -> (Run, Int?) {
            let report = folder.appendingPathComponent("r.json")
            try? FileManager.default.removeItem(at: report)
            let r = try run(segueBinary, ["batch", manifest, "--force", "--report", report.path] + arguments + small, in: folder,
                            environment: cpus.map { ["SLURM_CPUS_PER_TASK": $0] } ?? [:])
            let json = try? JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
            return (r, json?["jobsAtOnce"] as? Int)
        }
        // One CPU: one job at a time; the same ten jobs, the same nine outputs, whatever the count.
        let (one, oneAtOnce) = try atOnce([], cpus: "1")
        #expect(one.status == 1 && oneAtOnce == 1, "\(one.stderr)")
        let first = try files(in: folder.appendingPathComponent("out").path).map { try Data(contentsOf: folder.appendingPathComponent("out/\($0)")) }
        let (three, threeAtOnce) = try atOnce(["--jobs", "3"], cpus: "1")
        #expect(three.status == 1 && threeAtOnce == 3, "\(three.stderr)")
        let again = try files(in: folder.appendingPathComponent("out").path).map { try Data(contentsOf: folder.appendingPathComponent("out/\($0)")) }
        #expect(first.count == 9 && first == again, "the outputs do not depend on how many jobs run at once")
        let (auto, autoAtOnce) = try atOnce(["--jobs", "auto"], cpus: nil)
        #expect(auto.status == 1 && (autoAtOnce ?? 0) >= 1 && (autoAtOnce ?? 0) <= 10, "\(auto.stderr)")
        for wrong in ["0", "65", "many"] {
            let (r, _) = try atOnce(["--jobs", wrong], cpus: nil)
            #expect(r.status == 2 && r.stderr.contains("--jobs \(wrong): expected a number from 1 to 64, or auto."), "\(r.stderr)")
        }
    }

    @Test("shards 1/3, 2/3 and 3/3 together write every output exactly once")
    func shards() throws {
        let folder = temporaryFolder()
        let manifest = try tenJobs(in: folder)
        var written: [String] = []
        for k in 1...3 {
            let before = Set(files(in: folder.appendingPathComponent("out").path))
            let r = try segue(["batch", manifest, "--shard", "\(k)/3", "--quiet"] + small)
            #expect(r.status == (k == 1 ? 1 : 0), "shard \(k): \(r.stderr)") // job 4, which fails, is in shard 1
            #expect(r.stdout.isEmpty)
            let after = Set(files(in: folder.appendingPathComponent("out").path))
            written += after.subtracting(before)
        }
        #expect(written.sorted() == ["job1.mp4", "job10.mp4", "job2.mp4", "job3.mp4", "job5.mp4", "job6.mp4", "job7.mp4", "job8.mp4", "job9.mp4"])
        #expect(Set(written).count == written.count)
    }

    @Test("a broken manifest is a validation error with its line")
    func brokenManifest() throws {
        let folder = temporaryFolder()
        let path = folder.appendingPathComponent("m.yaml").path
        try "jobs:\n  - preset: slide\n    inputs: [a.jpg]\n    outptu: x.mp4\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try segue("batch", path)
        #expect(r.status == 2)
        #expect(r.stderr.contains("manifest \(path), line 4: unknown key 'jobs[1].outptu'. Did you mean 'output'?"), "\(r.stderr)")
        let bad = try segue("batch", path, "--shard", "4/3")
        #expect(bad.status == 2 && bad.stderr.contains("--shard"), "\(bad.stderr)")
    }

    @Test("the shipped example manifest runs")
    func exampleManifest() throws {
        let folder = temporaryFolder()
        // Copy it beside the example images so its relative paths hold, with outputs redirected.
        let text = try String(contentsOfFile: example("batch.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "../out/batch/", with: folder.path + "/")
            .replacingOccurrences(of: "[a.jpg", with: "[\(example("a.jpg"))").replacingOccurrences(of: ", a.jpg]", with: ", \(example("a.jpg"))]")
            .replacingOccurrences(of: "b.png", with: example("b.png")).replacingOccurrences(of: "c.webp", with: example("c.webp"))
        let manifest = folder.appendingPathComponent("batch.yaml").path
        try text.write(toFile: manifest, atomically: true, encoding: .utf8)
        let r = try segue(["batch", manifest] + small)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(files(in: folder.path) == ["batch.yaml", "crossfade-720p.mp4", "cube-fold-sheet.png", "stories.mp4", "telegram-backward.mp4"])
    }
}

@Suite("Pipelines: progress, quiet, signals, overwriting, exit codes")
struct PipelineCLITests {
    @Test("--progress json prints a JSON object a second, and at the first and last frame, for renders, chunks, joins and batches; stdout stays empty")
    func jsonProgress() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("v.mp4").path
        /// The JSON objects of a run's stderr, each line one.
        func objects(_ r: Run) throws -> [[String: Any]] {
            try r.stderr.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)") }
        }
        let r = try segue(["render", "--progress", "json", example("a.jpg"), example("b.png"), "-o", out] + small)
        #expect(r.status == 0 && r.stdout.isEmpty)
        let lines = try objects(r)
        // Under a second: the first frame and the last.
        #expect((2...33).contains(lines.count) && lines.first?["frame"] as? Int == 1 && lines.last?["frame"] as? Int == 33, "\(r.stderr)")
        for line in lines {
            #expect(line["job"] as? String == out && line["phase"] as? String == "render" && line["total"] as? Int == 33)
            #expect(line["elapsed"] is Double && line["fps"] is Double && line["eta"] is Double)
        }
        #expect(lines.last?["eta"] as? Double == 0)

        // A chunk says which; the join says it starts (frame 0) and ends; a batch its jobs.
        let chunked = folder.appendingPathComponent("c.mp4").path
        let chunk = try segue(["render", "--progress", "json", example("a.jpg"), example("b.png"), "-o", chunked, "--chunk", "2/2"] + small)
        let chunkLines = try objects(chunk)
        #expect(chunk.status == 0 && chunkLines.allSatisfy { $0["phase"] as? String == "chunk" && $0["chunk"] as? String == "2/2" }, "\(chunk.stderr)")
        let chunkFrames = try #require(chunkLines.last?["total"] as? Int)
        #expect((16...17).contains(chunkFrames) && chunkLines.last?["frame"] as? Int == chunkFrames, "\(chunk.stderr)")
        let join = try segue(["join", "--progress", "json", "--resume", "--chunk-count", "2", example("a.jpg"), example("b.png"), "-o", chunked] + small)
        let joinLines = try objects(join)
        #expect(join.status == 0 && joinLines.count == 3 && joinLines.allSatisfy { $0["phase"] as? String == "join" && $0["total"] as? Int == 33 }, "\(join.stderr)")
        #expect(joinLines.map { $0["frame"] as? Int } == [0, 0, 33] && (joinLines[1]["rendered"] as? String)?.hasSuffix("chunk-001-of-002.mp4") == true)

        let manifest = folder.appendingPathComponent("jobs.yaml").path
        try "jobs:\n  - {inputs: [\(example("a.jpg"))], output: one.mp4}\n  - {inputs: [\(example("b.png"))], output: two.mp4}\n"
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        let batch = try segue(["batch", "--progress", "json", "--jobs", "1", manifest] + small)
        let batchLines = try objects(batch)
        #expect(batch.status == 0 && batchLines.allSatisfy { $0["jobs"] as? Int == 2 && $0["phase"] as? String == "render" }, "\(batch.stderr)")
        #expect(batchLines.last?["jobsDone"] as? Int == 2 && batchLines.first?["jobsDone"] as? Int == 0, "\(batch.stderr)")
    }

    @Test("--quiet prints nothing on success; checksum prints only the checksums")
    func quiet() throws {
        let out = temporaryFolder().appendingPathComponent("v.mp4").path
        let r = try segue(["render", "--quiet", example("a.jpg"), "-o", out] + small)
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty)
        let sums = try segue(["checksum", example("a.jpg"), example("b.png")] + small)
        let render = try segue(["render", example("a.jpg"), example("b.png"), "-o", "-"] + small)
        #expect(sums.status == 0 && sums.stderr.isEmpty && sums.stdout == render.stdout && sums.stdout.hasPrefix("#format: frame checksums"))
    }

    @Test("an existing output is refused without --force and replaced with it")
    func overwrite() throws {
        let out = temporaryFolder().appendingPathComponent("v.mp4").path
        try "old".write(toFile: out, atomically: true, encoding: .utf8)
        let refused = try segue(["render", example("a.jpg"), "-o", out] + small)
        #expect(refused.status == 2 && refused.stderr.contains("\(out): already exists; pass --force to replace it"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "old")
        let forced = try segue(["render", "--force", example("a.jpg"), "-o", out] + small)
        let count = try frameCount(out)
        #expect(forced.status == 0 && count == 9)
    }

    @Test("missing and unsupported inputs exit 2, damaged ones 1, each naming the file; nothing is written")
    func inputErrors() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("v.mp4").path
        let notImage = folder.appendingPathComponent("notes.txt").path
        try "hello".write(toFile: notImage, atomically: true, encoding: .utf8)
        let damaged = folder.appendingPathComponent("half.png").path
        let data = try Data(contentsOf: URL(fileURLWithPath: example("b.png")))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: damaged))
        let cases: [(String, Int32, String)] = [
            (folder.appendingPathComponent("gone.jpg").path, 2, "gone.jpg: no such input file"),
            (notImage, 2, "notes.txt: not an image Segue can read"),
            (damaged, 1, "half.png: cannot read the image"),
        ]
        for (input, code, message) in cases {
            let r = try segue(["render", example("a.jpg"), input, "-o", out] + small)
            #expect(r.status == code, "\(input): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(r.stderr)")
        }
        #expect(files(in: folder.path) == ["half.png", "notes.txt"])
    }

    /// Starts a longer render, signals it once it is writing, and checks it stops cleanly: at
    /// the signal, not at the end (the frames it had composed when it stopped, from its last
    /// progress line, are a small part of the video), with the signal's code and nothing left.
    func interrupt(with signal: Int32, expecting code: Int32) throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("long.mp4").path
        // Every frame composed (a Ken Burns move) on one thread: still holds encode so fast
        // that an idle machine could otherwise be near the end when the signal comes.
        let render = try Launched(segueBinary, ["render", "--size", "360x640", "--set", "canvas.scale=1", "--set", "hold=20", "--set", "motion.kind=in",
                                                "--threads", "1", "--progress", "json", example("a.jpg"), example("b.png"), "-o", out])
        // Wait until the temporary file is there, so the signal lands mid-export (a bound
        // on a hang, not a measure).
        let deadline = Date().addingTimeInterval(60)
        while files(in: folder.path).isEmpty, Date() < deadline { usleep(20_000) }
        usleep(300_000)
        kill(render.process.processIdentifier, signal)
        let (status, stderr) = render.finish()
        #expect(status == code)
        #expect(files(in: folder.path).isEmpty, "left behind: \(files(in: folder.path))")
        let last = stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.last
        let frame = try #require(last?["frame"] as? Int, "\(stderr.suffix(500))"), total = try #require(last?["total"] as? Int)
        #expect(total > 1_000 && frame < total / 2, "stopped at frame \(frame) of \(total)")
    }

    @Test("SIGINT stops a render at once with exit 130, leaving no output and no temporary file")
    func sigint() throws { try interrupt(with: SIGINT, expecting: 130) }

    @Test("SIGTERM does the same with exit 143")
    func sigterm() throws { try interrupt(with: SIGTERM, expecting: 143) }

    @Test("a contact sheet is one PNG of frames sampled across the video; hevc encodes with libx265")
    func sheetAndHEVC() throws {
        let folder = temporaryFolder()
        let sheet = folder.appendingPathComponent("sheet.png").path
        let r = try segue(["render", example("a.jpg"), example("b.png"), "-o", sheet] + small)
        #expect(r.status == 0, "\(r.stderr)")
        let size = try tool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", sheet])
        // 12 thumbnails of 90x160 in rows of 6, 4 pixels apart.
        #expect(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(6 * 90 + 7 * 4),\(2 * 160 + 3 * 4)")
        let hevc = folder.appendingPathComponent("h.mp4").path
        let h = try segue(["render", "--codec", "hevc", example("a.jpg"), "-o", hevc] + small)
        #expect(h.status == 0, "\(h.stderr)")
        let codec = try tool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,codec_tag_string", "-of", "csv=p=0", hevc])
        #expect(codec.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hevc,hvc1")
    }

    @Test("transitions lists every transition with its family and source; show prints one's parameters with the defaults a preset gets; an unknown name is exit 2 with a suggestion")
    func transitions() throws {
        let list = try segue("transitions")
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        let names = lines.map { String($0.prefix { $0 != " " }) }
        #expect(Array(names.prefix(8)) == ["stories-cube", "telegram-cube", "crossfade", "slide", "flip", "iris", "cube-fold", "shared-zoom"],
                "\(list.stdout)")
        // FFmpeg xfade's 58 names are all there, as transitions or as other names of one.
        #expect(Set(names).count == names.count && names.count >= 75, "\(names.count) names")
        for name in ["fade", "wipeleft", "circlecrop", "dissolve", "fadegrays", "hlwind", "coverup", "revealdown", "squeezev", "zoomin"] {
            #expect(names.contains(name), "\(name)")
        }
        #expect(lines.contains { $0.hasPrefix("iris ") && $0.contains(" masks ") && $0.contains("FFmpeg xfade circleopen") && $0.hasSuffix("transition.center=[0.5, 0.5]") },
                "\(list.stdout)")
        #expect(lines.contains { $0.hasPrefix("wipetl ") && $0.contains(" masks ") && $0.contains("= wipecorner corner=tl") }, "\(list.stdout)")
        let alias = try segue("transitions", "show", "wipetl")
        #expect(alias.status == 0 && alias.stdout.hasPrefix("wipetl is wipecorner with corner=tl\nwipecorner: "), "\(alias.stdout)")
        // The gl-transitions ports: gl: and the file's name, in any case, and the file's name alone where free.
        #expect(names.filter { $0.hasPrefix("gl:") }.count >= 30 && names.count >= 85, "\(names.count) names")
        #expect(lines.contains { $0.hasPrefix("gl:crosswarp ") && $0.contains("gl-transitions crosswarp.glsl (Eke Péter, MIT)") }, "\(list.stdout)")
        let plain = try segue("transitions", "show", "CrossWarp")
        #expect(plain.status == 0 && plain.stdout.hasPrefix("crosswarp is gl:crosswarp\ngl:crosswarp: "), "\(plain.stdout)")
        let dissolve = try segue("transitions", "show", "dissolve")
        #expect(names.contains("gl:dissolve") && dissolve.stdout.hasPrefix("dissolve: "), "xfade's dissolve keeps its name: \(dissolve.stdout)")
        // Each parameter shown is a key a preset of that transition has, at the same default.
        let folder = temporaryFolder()
        for name in ["telegram-cube", "iris", "slide", "gl:ripple"] {
            let show = try segue("transitions", "show", name)
            #expect(show.status == 0 && show.stdout.hasPrefix("\(name): ") && show.stdout.contains("\nfamily: ") && show.stdout.contains("\nsource: "), "\(show.stdout)")
            let bare = folder.appendingPathComponent("\(name).yaml").path
            try "transition: {kind: \(name)}\n".write(toFile: bare, atomically: true, encoding: .utf8)
            let preset = try segue("presets", "show", bare)
            let parameters = show.stdout.split(separator: "\n").filter { $0.hasPrefix("  transition.") }
            #expect(parameters.count >= 1 && !show.stdout.contains("\\|"), "\(show.stdout)")
            for line in parameters {
                let key = String(line.dropFirst(2).prefix { $0 != " " }.dropFirst("transition.".count))
                let value = try #require(line.range(of: ", default ").map { String(line[$0.upperBound...].prefix { $0 != ";" }) })
                #expect(preset.stdout.contains("\n  \(key): \(value)\n"), "\(key): \(value) in \(preset.stdout)")
            }
        }
        let wrong = try segue("transitions", "show", "irsi")
        #expect(wrong.status == 2 && wrong.stderr.contains("'irsi'") && wrong.stderr.contains("did you mean 'iris'?"), "\(wrong.stderr)")
    }

    @Test("presets lists the shipped presets; show prints YAML that loads back the same; a user preset extends a shipped one")
    func presets() throws {
        let list = try segue("presets")
        #expect(list.status == 0)
        for name in shippedPresets {
            #expect(list.stdout.split(separator: "\n").contains { $0.hasPrefix(name + " ") }, "\(name)")
        }
        let folder = temporaryFolder()
        let mine = folder.appendingPathComponent("mine.yaml").path
        try "extends: telegram-cube\ndescription: mine\ntransition: {maxAngle: 45}\ncanvas: {background: '#102030'}\n"
            .write(toFile: mine, atomically: true, encoding: .utf8)
        let show = try segue("presets", "show", mine)
        #expect(show.status == 0 && show.stdout.contains("  maxAngle: 45\n") && show.stdout.contains("  perspective: 500\n")
                && show.stdout.contains("  background: \"#102030\"\n") && show.stdout.contains("description: mine\n"))
        let resolved = folder.appendingPathComponent("resolved.yaml").path
        try show.stdout.write(toFile: resolved, atomically: true, encoding: .utf8)
        let again = try segue("presets", "show", resolved)
        #expect(again.stdout == show.stdout)
        // The user's preset renders like the shipped one with the same overrides.
        let a = try segue(["checksum", "--preset", mine, example("a.jpg"), example("b.png")] + small)
        let b = try segue(["checksum", "--preset", "telegram-cube", "--set", "transition.maxAngle=45", "--set", "canvas.background=#102030",
                           example("a.jpg"), example("b.png")] + small)
        #expect(a.status == 0 && a.stdout == b.stdout)
        let loop = folder.appendingPathComponent("loop.yaml").path
        try "extends: loop.yaml\n".write(toFile: loop, atomically: true, encoding: .utf8)
        let cycle = try segue("presets", "show", loop)
        #expect(cycle.status == 2 && cycle.stderr.contains("a preset that does not extend itself"))
    }

    @Test("every command has help naming its options")
    func help() throws {
        let expected: [String: [String]] = [
            "render": ["--preset", "--set <KEY=VALUE>", "--size <WxH>", "--fps", "--codec <CODEC>", "--threads", "--force", "--progress <MODE>",
                       "--quiet", "--format <FORMAT>", "--frames <LIST>", "-o <OUTPUT>"],
            "checksum": ["--preset", "--set <KEY=VALUE>", "--frames <LIST>"],
            "batch": ["--jobs", "--report <FILE>", "--shard <K/N|auto>", "--shard-count <N>", "--resume", "--dry-run",
                      "--set <KEY=VALUE>", "--force", "--progress <MODE>", "--presets <DIR>"],
            "presets": ["list", "show"],
            "presets list": ["--presets <DIR>"],
        ]
        for (command, options) in expected {
            let r = try segue(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(r.status == 0)
            for option in options { #expect(r.stdout.contains(option), "\(command): \(option)") }
        }
        // The root help says what Segue does now: clips, the outputs, a damaged clip's exit code.
        let help = try segue("--help")
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in ["photos and video clips", "MP4, WebM, MOV, GIF, WebP", "Exit codes: 0 success; 1 a failure while exporting (a damaged image or clip",
                       "segue join", "libyaml"] {
            #expect(text.contains(phrase), "\(phrase): \(help.stdout)")
        }
        #expect(!text.contains("still images into MP4"))
    }
}
