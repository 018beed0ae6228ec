import Foundation
import Testing
@testable import Segue

/// Small renders of every shipped preset, pinned by their framemd5 checksums. Set
/// SEGUE_UPDATE_GOLDEN=1 to rewrite the files after an intended change of the pixels (and
/// say why in the commit).
@Suite("Golden framemd5 renders")
struct GoldenTests {
    static let small = ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.2"]

    static let cases: [(String, String, [String])] = {
        let presets = (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Presets").path)) ?? []
        return presets.filter { $0.hasSuffix(".yaml") }.sorted().map { file in
            let name = String(file.dropLast(5))
            return (name + "-90x160", name, small)
        } + [("stories-cube-90x160-linear-fit", "stories-cube",
              ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.1", "fit=fit", "transition.curve=linear",
               "transition.perspective=300", "canvas.background=#204060"])]
    }()

    func render(preset: String, overrides: [String], threads: Int) throws -> String {
        let preset = try Preset.load(repositoryRoot.appendingPathComponent("Presets/\(preset).yaml").path, overrides: overrides)
        let out = temporaryFolder().appendingPathComponent("golden.framemd5").path
        let job = try Job(preset: preset, inputs: [example("a.jpg"), example("b.png"), example("c.webp")], output: out, threads: threads)
        try Exporter.run(job)
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    @Test("every shipped preset at 90x160, and variants", arguments: cases)
    func golden(name: String, preset: String, overrides: [String]) throws {
        let text = try render(preset: preset, overrides: overrides, threads: 2)
        let url = repositoryRoot.appendingPathComponent("Tests/SegueTests/Golden/\(name).framemd5")
        if ProcessInfo.processInfo.environment["SEGUE_UPDATE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let golden = try #require(try? String(contentsOf: url, encoding: .utf8), "no golden file \(url.lastPathComponent); run the tests once with SEGUE_UPDATE_GOLDEN=1")
        #expect(text == golden)
        #expect(try render(preset: preset, overrides: overrides, threads: 1) == golden)
    }
}
