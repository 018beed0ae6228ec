import Foundation
import Testing

@Suite("The README's commands")
struct ReadmeTests {
    /// The `segue` command lines of the README's shell blocks, as written.
    static let commands: [String] = {
        let readme = (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        var inShell = false, lines: [String] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            let command = line.split(separator: "#", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if inShell && (command.hasPrefix("segue ") || command.hasPrefix("parallel segue ")) { lines.append(command) }
        }
        return lines
    }()

    @Test("the README shows segue commands")
    func found() {
        #expect(ReadmeTests.commands.count >= 8)
    }

    /// Runs one README command in a fresh folder holding the files it names (a.jpg, b.jpg,
    /// b.png, c.webp and a copy of Examples/). GNU parallel's line runs its four shards in turn;
    /// the Kubernetes line runs as pod 0 with its /data folder made local.
    @Test("each runs as written and succeeds", arguments: commands)
    func runs(command: String) throws {
        let folder = temporaryFolder()
        let examples = folder.appendingPathComponent("Examples")
        try FileManager.default.createDirectory(at: examples, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.png", "c.webp", "batch.yaml"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: examples.appendingPathComponent(name).path)
        }
        for (name, source) in [("a.jpg", "a.jpg"), ("b.png", "b.png"), ("c.webp", "c.webp"), ("b.jpg", "a.jpg")] {
            try FileManager.default.copyItem(atPath: example(source), toPath: folder.appendingPathComponent(name).path)
        }
        var script = command
        if command.hasPrefix("parallel ") {
            let body = command.dropFirst("parallel ".count).components(separatedBy: " ::: ")[0]
            script = (1...4).map { body.replacingOccurrences(of: "{}", with: "\($0)") }.joined(separator: " && ")
        }
        if command.contains("/data/") {
            try FileManager.default.copyItem(atPath: example("batch.yaml"), toPath: examples.appendingPathComponent("manifest.yaml").path)
            script = "JOB_COMPLETION_INDEX=0; " + command.replacingOccurrences(of: "/data/", with: "Examples/")
        }
        if command.contains("| diff expected.framemd5") {
            script = ReadmeTests.commands.first { $0.hasSuffix("> expected.framemd5") }! + " && " + command
        }
        let bin = URL(fileURLWithPath: segueBinary).deletingLastPathComponent().path
        let r = try run("/bin/sh", ["-c", "cd '\(folder.path)' && export PATH='\(bin)':$PATH SEGUE_PRESETS='\(root.path)/Presets' && " + script])
        #expect(r.status == 0, "\(command): \(r.stderr)")
    }
}
