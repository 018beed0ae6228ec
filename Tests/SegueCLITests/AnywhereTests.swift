import Foundation
import Testing

/// The segue executable copied alone into an empty folder, as an install puts it: one copy
/// for the run (the binary is 200 MB with its debugging symbols; a copy for each of the
/// tests that ask took 9 GB of the scratch folder).
func installedAlone() throws -> String { try aloneCopy.get() }

private let aloneCopy = Result<String, Error> {
    let bin = temporaryFolder().appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let copy = bin.appendingPathComponent("segue").path
    // Written through a close-on-exec descriptor: a copy whose descriptor a child started
    // meanwhile by another test inherited could not be run ("Text file busy") until that
    // child ended.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: segueBinary))
    let fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
    var written = 0
    bytes.withUnsafeBytes { raw in
        while written < raw.count {
            let n = write(fd, raw.baseAddress! + written, raw.count - written)
            if n <= 0 { break }
            written += n
        }
    }
    close(fd)
    guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    return copy
}

/// A folder of photos, as a user has: the bundled examples, nothing else.
func photoFolder() throws -> URL {
    let folder = temporaryFolder()
    for name in ["a.jpg", "b.png", "c.webp"] {
        try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
    }
    return folder
}

@Suite("The binary alone, anywhere")
struct AnywhereTests {
    @Test("copied into an empty folder and run from a folder of photos, it renders the default and every built-in preset by name")
    func alone() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let list = try run(segue, ["presets"], in: photos)
        #expect(list.status == 0, "\(list.stderr)")
        let names = list.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
        #expect(names == shippedPresets && names.count >= 8, "\(list.stdout)")
        #expect(list.stdout.split(separator: "\n").allSatisfy { $0.contains("  built-in  ") })

        let small = ["--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.2"]
        let plain = try run(segue, ["render", "a.jpg", "b.png", "-o", "default.mp4"] + small, in: photos)
        #expect(plain.status == 0, "\(plain.stderr)")
        for preset in names {
            let r = try run(segue, ["render", "--preset", preset, "a.jpg", "b.png", "c.webp", "-o", "\(preset).mp4"] + small, in: photos)
            #expect(r.status == 0, "\(preset): \(r.stderr)")
            #expect(try frameCount(photos.appendingPathComponent("\(preset).mp4").path) ?? 0 > 0, "\(preset)")
        }
        let show = try run(segue, ["presets", "show", "telegram-cube"], in: photos)
        #expect(show.status == 0 && show.stdout.contains("  kind: telegram-cube\n"), "\(show.stderr)")
    }

    @Test("the built-in presets are Presets/*.yaml, byte for byte")
    func builtInsAreTheFolder() throws {
        let segue = try installedAlone()
        let folder = repositoryRoot.appendingPathComponent("Presets")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".yaml") {
            let name = String(file.dropLast(5))
            let fromFile = try run(segue, ["presets", "show", folder.appendingPathComponent(file).path], in: temporaryFolder())
            let builtIn = try run(segue, ["presets", "show", name], in: temporaryFolder())
            #expect(fromFile.status == 0 && builtIn.status == 0)
            #expect(fromFile.stdout == builtIn.stdout, "\(name)")
        }
    }

    @Test("--version prints Segue's version and commit and the codec libraries' versions")
    func version() throws {
        let r = try run(try installedAlone(), ["--version"], in: temporaryFolder())
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.range(of: #"^segue \d+\.\d+\.\d+( \(commit [0-9a-f]{12}(-dirty)?\))?$"#, options: .regularExpression) != nil, "\(lines)")
        // Built from this checkout, the commit is there.
        let head = try tool("git", ["-C", repositoryRoot.path, "rev-parse", "--short=12", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(lines.first?.contains("commit \(head)") == true, "\(lines)")
        for library in ["libavcodec", "libavformat"] {
            #expect(lines.contains { $0.range(of: "^\(library) \\d+\\.\\d+\\.\\d+$", options: .regularExpression) != nil }, "\(library): \(lines)")
        }
        #expect(lines.contains { $0.hasPrefix("libx264 core ") && Int($0.dropFirst(13)) != nil }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("libx265 ") }, "\(lines)")
    }

    @Test("user presets come from --presets and SEGUE_PRESETS, win over a built-in of the same name, and may extend it")
    func userPresets() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let mine = photos.appendingPathComponent("mine")
        let team = photos.appendingPathComponent("team")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: team, withIntermediateDirectories: true)
        try "extends: stories-cube\ndescription: Our cube\ntransition: {perspective: 300}\n"
            .write(to: mine.appendingPathComponent("stories-cube.yaml"), atomically: true, encoding: .utf8)
        try "extends: telegram-cube\ntransition: {maxAngle: 45}\n".write(to: team.appendingPathComponent("soft.yaml"), atomically: true, encoding: .utf8)

        let list = try run(segue, ["presets", "--presets", mine.path], in: photos, environment: ["SEGUE_PRESETS": team.path])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        let cube = try #require(lines.first { $0.hasPrefix("stories-cube ") })
        #expect(cube.contains("\(mine.path)/stories-cube.yaml (replaces built-in)") && cube.hasSuffix("Our cube"), "\(cube)")
        let soft = try #require(lines.first { $0.hasPrefix("soft ") })
        #expect(soft.contains("\(team.path)/soft.yaml") && soft.hasSuffix("extends telegram-cube"), "\(soft)")
        #expect(lines.count == 9)

        let show = try run(segue, ["presets", "show", "stories-cube", "--presets", mine.path], in: photos)
        #expect(show.stdout.contains("  perspective: 300\n") && show.stdout.contains("  kind: stories-cube\n"), "\(show.stdout) \(show.stderr)")
        let render = try run(segue, ["render", "--preset", "soft", "a.jpg", "b.png", "-o", "soft.mp4", "--size", "90x160", "--set", "canvas.scale=0.25"],
                             in: photos, environment: ["SEGUE_PRESETS": team.path])
        #expect(render.status == 0, "\(render.stderr)")

        let missing = try run(segue, ["presets", "--presets", "nowhere"], in: photos)
        #expect(missing.status == 2 && missing.stderr.contains("nowhere: cannot read it: no such folder (named by --presets)"), "\(missing.stderr)")
        let missingEnv = try run(segue, ["render", "a.jpg", "-o", "x.mp4"], in: photos, environment: ["SEGUE_PRESETS": "/no/such"])
        #expect(missingEnv.status == 2 && missingEnv.stderr.contains("/no/such: cannot read it: no such folder (named by SEGUE_PRESETS)"))
    }

    @Test("the default thread count follows the CPUs given: taskset, SLURM_CPUS_PER_TASK, a cgroup CPU quota")
    func threads() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let args = ["render", "a.jpg", "-o", "t.framemd5", "--force", "--size", "90x160", "--set", "canvas.scale=0.25"]
        func threads(_ r: Run) -> Int? {
            guard let range = r.stderr.range(of: #"(\d+) threads?;"#, options: .regularExpression) else { return nil }
            return Int(r.stderr[range].prefix { $0.isNumber })
        }
        let all = try run(segue, args, in: photos)
        #expect((1...ProcessInfo.processInfo.activeProcessorCount).contains(threads(all) ?? 0), "\(all.stderr)")
        let pinned = try run("/usr/bin/taskset", ["-c", "0", segue] + args, in: photos)
        #expect(threads(pinned) == 1, "\(pinned.stderr)")
        let slurm = try run(segue, args, in: photos, environment: ["SLURM_CPUS_PER_TASK": "1"])
        #expect(threads(slurm) == 1, "\(slurm.stderr)")
        let given = try run(segue, args + ["--threads", "3"], in: photos, environment: ["SLURM_CPUS_PER_TASK": "1"])
        #expect(threads(given) == 3, "an explicit --threads wins: \(given.stderr)")
    }

    @Test("a cgroup CPU quota of one CPU gives one thread by default", .enabled(if: Privileges.cgroup != nil, "needs root and a cgroup file system that lets it make a group"))
    func cgroupQuota() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let args = ["render", "a.jpg", "-o", "t.framemd5", "--force", "--size", "90x160", "--set", "canvas.scale=0.25"]
        let (base, quotaFile, quota) = try #require(Privileges.cgroup)
        let group = base + "/segue-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: false)
        defer { _ = rmdir(group) }
        try quota.write(toFile: group + "/" + quotaFile, atomically: false, encoding: .utf8)
        let limited = try run("/bin/sh", ["-c", "echo $$ > \(group)/cgroup.procs && exec \(segue) \(args.joined(separator: " "))"], in: photos)
        let count = limited.stderr.range(of: #"(\d+) threads?;"#, options: .regularExpression).flatMap { Int(limited.stderr[$0].prefix { $0.isNumber }) }
        #expect(count == 1, "\(limited.stderr)")
    }
}

@Suite("Batches that survive retries")
struct ResumeTests {
    /// Three small jobs of three formats (an MP4, framemd5 checksums, a folder of frames).
    func manifest(in folder: URL, duration: Double = 0.3) throws -> String {
        let text = """
            jobs:
              - {name: one, preset: slide, inputs: [a.jpg, b.png], output: out/one.mp4}
              - name: two
                preset: crossfade
                set: {transition: {duration: \(duration)}}
                inputs: [a.jpg, c.webp]
                output: out/two.framemd5
              - {name: three, preset: slide, set: {transition.kind: crossfade}, inputs: [b.png, c.webp], output: out/three}

            """
        let path = folder.appendingPathComponent("jobs.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    let small = ["--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.2", "--quiet"]

    /// Each output's modification time and inode, to tell whether it was written again.
    func stamps(_ folder: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in ["one.mp4", "two.framemd5", "three/frame-00000.png"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("out/" + name).path)
            result[name] = "\(attributes[.modificationDate]!) \(attributes[.systemFileNumber]!)"
        }
        return result
    }

    @Test("--resume skips outputs made from the same job, renders changed and unmarked ones, and exits 0")
    func resume() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let path = try manifest(in: photos)
        let first = try run(segue, ["batch", path, "--resume"] + small, in: photos)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try stamps(photos)

        // Retried: nothing to do, every job reported as skipped.
        let again = try run(segue, ["batch", path, "--resume", "--report", "reports/retry.json", "--size", "90x160", "--set", "canvas.scale=0.25",
                                    "--set", "hold=0.2"], in: photos)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.split(separator: "\n").dropFirst().allSatisfy { $0.contains(" skipped") }, "\(again.stdout)")
        #expect(try stamps(photos) == before)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: photos.appendingPathComponent("reports/retry.json"))) as! [String: Any]
        #expect(report["skipped"] as? Int == 3 && report["succeeded"] as? Int == 0, "the report's folder was made: \(report)")

        // Without --resume, existing outputs are refused before anything runs.
        let refused = try run(segue, ["batch", path] + small, in: photos)
        #expect(refused.status == 2 && refused.stderr.contains("3 problems; no job was run"), "\(refused.stderr)")

        // Job two changes; job one's photo is replaced by other content; job three is unchanged.
        _ = try manifest(in: photos, duration: 0.2)
        try FileManager.default.removeItem(at: photos.appendingPathComponent("a.jpg"))
        try FileManager.default.copyItem(atPath: example("c.webp"), toPath: photos.appendingPathComponent("a.jpg").path)
        let plan = try run(segue, ["batch", path, "--resume", "--dry-run"] + small.dropLast(), in: photos)
        #expect(plan.status == 0, "\(plan.stderr)")
        let rows = plan.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 4 && rows[1].contains(" render") && rows[2].contains(" render") && rows[3].contains(" skip"), "\(plan.stdout)")
        #expect(try stamps(photos) == before, "a dry run writes nothing")

        let changed = try run(segue, ["batch", path, "--resume"] + small, in: photos)
        #expect(changed.status == 0, "\(changed.stderr)")
        let after = try stamps(photos)
        #expect(after["one.mp4"] != before["one.mp4"] && after["two.framemd5"] != before["two.framemd5"])
        #expect(after["three/frame-00000.png"] == before["three/frame-00000.png"])

        // An output with no fingerprint (made some other way) is rendered again and replaced.
        try "not a video".write(to: photos.appendingPathComponent("out/one.mp4"), atomically: true, encoding: .utf8)
        let unmarked = try run(segue, ["batch", path, "--resume"] + small, in: photos)
        let frames = try frameCount(photos.appendingPathComponent("out/one.mp4").path)
        #expect(unmarked.status == 0 && frames == 27, "\(unmarked.stderr)")
    }

    @Test("moving the photos keeps the fingerprint: inputs count by content")
    func movedInputs() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        let out = photos.appendingPathComponent("story.mp4").path
        let r = try run(segue, ["render", "a.jpg", "b.png", "-o", out] + small, in: photos)
        #expect(r.status == 0, "\(r.stderr)")
        let moved = photos.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.png"] {
            try FileManager.default.moveItem(at: photos.appendingPathComponent(name), to: moved.appendingPathComponent(name))
        }
        let kept = try run(segue, ["render", "elsewhere/a.jpg", "elsewhere/b.png", "-o", out, "--resume"] + small.dropLast(), in: photos)
        #expect(kept.status == 0 && kept.stderr.contains("segue: kept \(out): it was made from the same job (sha256:"), "\(kept.stderr)")
        let swapped = try run(segue, ["render", "elsewhere/b.png", "elsewhere/a.jpg", "-o", out, "--resume"] + small.dropLast(), in: photos)
        #expect(swapped.status == 0 && swapped.stderr.contains("segue: wrote \(out)"), "the order of the inputs counts: \(swapped.stderr)")
        let probe = try tool("ffprobe", ["-v", "error", "-show_entries", "format_tags=com.segue.fingerprint", "-of", "csv=p=0", out])
        #expect(probe.stdout.hasPrefix("sha256:") && probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 71, "\(probe.stdout)")
    }

    @Test("--shard auto reads Slurm, Kubernetes and AWS Batch arrays, 0- or 1-based, and refuses what it cannot place")
    func shardAuto() throws {
        let segue = try installedAlone()
        let photos = try photoFolder()
        var text = "jobs:\n"
        for i in 1...6 { text += "  - {preset: slide, inputs: [a.jpg], output: out/job\(i).framemd5}\n" }
        try text.write(to: photos.appendingPathComponent("six.yaml"), atomically: true, encoding: .utf8)
        func outputs() -> [String] { files(in: photos.appendingPathComponent("out").path) }
        let arrays: [(String, [[String: String]], [String])] = [
            ("slurm 0-2", (0...2).map { ["SLURM_ARRAY_TASK_ID": "\($0)", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2"] }, []),
            ("slurm 1-3", (1...3).map { ["SLURM_ARRAY_TASK_ID": "\($0)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"] }, []),
            ("slurm 0-4:2", [0, 2, 4].map { ["SLURM_ARRAY_TASK_ID": "\($0)", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "4", "SLURM_ARRAY_TASK_STEP": "2"] }, []),
            ("kubernetes", (0...2).map { ["JOB_COMPLETION_INDEX": "\($0)"] }, ["--shard-count", "3"]),
            ("aws", (0...1).map { ["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)", "AWS_BATCH_JOB_ARRAY_SIZE": "2"] }, []),
        ]
        for (engine, tasks, extra) in arrays {
            try? FileManager.default.removeItem(at: photos.appendingPathComponent("out"))
            var written: [String] = []
            for env in tasks {
                let before = Set(outputs())
                let r = try run(segue, ["batch", "six.yaml", "--shard", "auto"] + extra + small, in: photos, environment: env)
                #expect(r.status == 0, "\(engine) \(env): \(r.stderr)")
                written += Set(outputs()).subtracting(before)
            }
            #expect(written.sorted() == (1...6).map { "job\($0).framemd5" }.sorted(), "\(engine): \(written)")
        }
        let failures: [([String: String], [String], String)] = [
            ([:], [], "none of SLURM_ARRAY_TASK_ID (Slurm), JOB_COMPLETION_INDEX (Kubernetes) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) is set"),
            (["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2"], [],
             "read SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=2, which makes task 3 of 3; expected 0...2"),
            (["JOB_COMPLETION_INDEX": "1"], [], "read JOB_COMPLETION_INDEX=1, but not how many tasks there are; pass --shard-count N"),
            (["JOB_COMPLETION_INDEX": "4"], ["--shard-count", "4"], "read JOB_COMPLETION_INDEX=4 and --shard-count 4, which makes task 4 of 4"),
            (["AWS_BATCH_JOB_ARRAY_INDEX": "x"], [], "AWS_BATCH_JOB_ARRAY_INDEX=x is not a whole number"),
        ]
        for (env, extra, message) in failures {
            let r = try run(segue, ["batch", "six.yaml", "--shard", "auto"] + extra + small, in: photos, environment: env)
            #expect(r.status == 2 && r.stderr.contains(message), "\(env): \(r.stderr)")
        }
        let zero = try run(segue, ["batch", "six.yaml", "--shard", "0/3"] + small, in: photos)
        #expect(zero.status == 2 && zero.stderr.contains("K counts from 1. For a 0-based array index use --shard auto"), "\(zero.stderr)")
    }
}
