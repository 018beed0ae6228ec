import Foundation
import Testing
@testable import Segue

/// Small renders pinned by their framemd5 checksums. Set SEGUE_UPDATE_GOLDEN=1 to rewrite
/// the files after an intended change of the pixels (and say why in the commit).
@Suite("Golden framemd5 renders")
struct GoldenTests {
    func render(_ name: String, overrides: [String], threads: Int) throws -> String {
        let preset = try Preset.load(repositoryRoot.appendingPathComponent("Presets/stories-cube.yaml").path, overrides: overrides)
        let out = temporaryFolder().appendingPathComponent("\(name).framemd5").path
        let job = try Job(preset: preset, inputs: [example("a.jpg"), example("b.png"), example("c.webp")], output: out, threads: threads)
        try Exporter.run(job)
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    @Test("stories-cube at 90x160", arguments: [
        ("stories-cube-90x160", ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.2", "transition.duration=0.5"]),
        ("stories-cube-90x160-linear-fit", ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.1", "fit=fit",
                                            "transition.curve=linear", "transition.perspective=300", "canvas.background=#204060"]),
    ])
    func golden(name: String, overrides: [String]) throws {
        let text = try render(name, overrides: overrides, threads: 2)
        let url = repositoryRoot.appendingPathComponent("Tests/SegueTests/Golden/\(name).framemd5")
        if ProcessInfo.processInfo.environment["SEGUE_UPDATE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        #expect(text == golden)
        #expect(try render(name, overrides: overrides, threads: 1) == golden)
    }
}
