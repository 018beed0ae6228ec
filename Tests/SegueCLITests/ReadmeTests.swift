import Foundation
import Testing

@Suite("The README's commands")
struct ReadmeTests {
    /// The `segue` command lines of the README's shell blocks, as written.
    static let commands: [String] = {
        let readme = (try? String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        var inShell = false, lines: [String] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            let command = line.split(separator: "#", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if inShell && (command.hasPrefix("segue ") || command.hasPrefix("parallel segue ")) { lines.append(command) }
        }
        return lines
    }()

    @Test("the README shows segue commands, and a recipe for each cluster engine")
    func found() {
        #expect(ReadmeTests.commands.count >= 10)
        #expect(ReadmeTests.commands.contains { $0.hasPrefix("parallel segue batch") && $0.contains("--shard {}/4 --resume") })
        #expect(ReadmeTests.commands.contains { $0.contains("--shard auto --resume") && $0.contains("$SLURM_ARRAY_TASK_ID") })
        #expect(ReadmeTests.commands.contains { $0.contains("--shard auto --shard-count 4 --resume") && $0.contains("$JOB_COMPLETION_INDEX") })
        #expect(ReadmeTests.commands.contains { $0.hasPrefix("parallel segue render") && $0.contains("--chunk {} ::: 1/4 2/4 3/4 4/4 sound") })
        #expect(ReadmeTests.commands.contains { $0.hasPrefix("segue join") })
    }

    /// Runs one README command in a fresh folder holding the files it names (a.jpg, b.jpg,
    /// b.png, c.webp, logo.png, music.mp3, clip.mov and a copy of Examples/), with the built segue first on the PATH. GNU
    /// parallel's line runs with each of its values in turn; a cluster recipe runs as every task of
    /// its array (Slurm's four, Kubernetes' four pods), with its /data folder made local,
    /// twice: the second time every job is skipped.
    @Test("each runs as written and succeeds", .wholeSuite("the README's renders at their own size (1080x1920), two minutes of them"), arguments: commands)
    func runs(command: String) throws {
        let folder = temporaryFolder()
        let examples = folder.appendingPathComponent("Examples")
        try FileManager.default.createDirectory(at: examples, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.png", "c.webp", "batch.yaml", "story.yaml", "text.yaml", "talk.vtt", "stickers.yaml", "heart.gif", "logo.png", "card.yaml", "people.csv"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: examples.appendingPathComponent(name).path)
        }
        for (name, source) in [("a.jpg", "a.jpg"), ("b.png", "b.png"), ("c.webp", "c.webp"), ("b.jpg", "a.jpg"), ("logo.png", "logo.png")] {
            try FileManager.default.copyItem(atPath: example(source), toPath: folder.appendingPathComponent(name).path)
        }
        if command.contains("music.mp3") {
            let tone = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=4", folder.appendingPathComponent("music.mp3").path])
            #expect(tone.status == 0, "\(tone.stderr)")
        }
        if command.contains("clip.mov") {
            _ = try makeClip("clip.mov", "testsrc2=s=320x240:r=30:d=1.5", ["-c:v", "libx264", "-pix_fmt", "yuv420p"], in: folder)
        }
        var script = command
        if command.hasPrefix("parallel ") {
            // Each of the values after ::: in turn, as GNU parallel runs them.
            let parts = command.dropFirst("parallel ".count).components(separatedBy: " ::: ")
            script = parts[1].split(separator: " ").map { parts[0].replacingOccurrences(of: "{}", with: String($0)) }.joined(separator: " && ")
        }
        if command.contains("/data/") {
            try FileManager.default.copyItem(atPath: example("batch.yaml"), toPath: examples.appendingPathComponent("manifest.yaml").path)
            let local = command.replacingOccurrences(of: "/data/", with: "Examples/")
            let tasks: [String]
            if command.contains("JOB_COMPLETION_INDEX") {
                tasks = (0..<4).map { "JOB_COMPLETION_INDEX=\($0)" }
            } else if command.contains("SLURM_ARRAY_TASK_ID") {
                tasks = (0..<4).map { "SLURM_ARRAY_TASK_ID=\($0) SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 SLURM_ARRAY_TASK_COUNT=4" }
            } else {
                tasks = ["NOTHING="]
            }
            script = (tasks + tasks).map { "(export \($0); \(local))" }.joined(separator: " && ")
        }
        if command.hasPrefix("segue preview ") {
            // A server: started on a free port, asked for its page once the story reads, then
            // stopped with Ctrl-C's signal, which it must end by with 130, as render does.
            script = "true; \(command) --port 0 > preview.out 2> preview.err & pid=$!; url=; "
                + "for i in $(seq 600); do url=$(grep -o 'http://[^ ]*' preview.out); "
                + "[ -n \"$url\" ] && curl -sf \"${url}api/story\" | grep -q '\"ok\":true' && break; sleep 0.1; done; "
                + "curl -sf \"$url\" | grep -q '<title>Segue preview</title>'; page=$?; kill -INT $pid; wait $pid; [ $? -eq 130 ] || exit 1; "
                + "[ $page -eq 0 ] || { cat preview.out preview.err >&2; exit 1; }"
        }
        if command.contains("| diff expected.framemd5") {
            script = ReadmeTests.commands.first { $0.hasSuffix("> expected.framemd5") }! + " && " + command
        }
        let bin = URL(fileURLWithPath: segueBinary).deletingLastPathComponent().path
        let r = try run("/bin/sh", ["-c", "cd '\(folder.path)' && export PATH='\(bin)':$PATH && " + script])
        #expect(r.status == 0, "\(command): \(r.stderr)")
        if command.contains("--shard auto") {
            // Every job of the manifest was rendered by exactly one task, and the second round skipped them all.
            let reports = files(in: examples.appendingPathComponent("reports").path)
            #expect(reports.count == 4, "\(reports)")
            var skipped = 0
            for name in reports {
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: examples.appendingPathComponent("reports/" + name))) as! [String: Any]
                skipped += json["skipped"] as? Int ?? 0
                #expect(json["failed"] as? Int == 0)
            }
            #expect(skipped == 4, "the manifest's four jobs, skipped on the second round")
        }
    }
}
