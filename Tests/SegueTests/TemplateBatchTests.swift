import Foundation
import Testing
@testable import Segue

@Suite("Templates in bulk")
struct TemplateBatchTests {
    @Test("a picture every row draws (a logo) is decoded once for the whole batch, each row's own photo once per row")
    func sharedPicturesDecodedOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("segue-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Copies of their own: other tests (in this process, at the same time) run batches
        // that share the Examples pictures, and the counts are kept by picture.
        let examples = folder.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: examples, withIntermediateDirectories: true)
        for name in ["logo.png", "a.jpg", "b.png"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Examples/\(name)"), to: examples.appendingPathComponent(name))
        }
        try """
            vars: {name: ~, photo: ~}
            preset: crossfade
            set: {canvas.size: [90, 160], canvas.scale: 0.25, hold: 0.2, logo.image: \(examples.appendingPathComponent("logo.png").path)}
            overlays: [{text: "{{name}}", size: 10}]
            slides: [{image: "{{photo}}"}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        var csv = "id,name,photo\n"
        for i in 0..<4 { csv += "r\(i),Name \(i),\(examples.appendingPathComponent(i % 2 == 0 ? "a.jpg" : "b.png").path)\n" }
        try csv.write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
        let rows = Manifest.rows(of: try StoryTemplate.load(folder.appendingPathComponent("card.yaml").path),
                                 data: try TemplateData.load(folder.appendingPathComponent("rows.csv").path),
                                 output: folder.path + "/out/{{id}}.framemd5")
        #expect(rows.manifest.problems.isEmpty, "\(rows.manifest.problems)")
        let prepared = BatchRunner.prepare(rows.manifest.entries, settings: BatchSettings())
        #expect(prepared.problems.isEmpty && prepared.jobs.count == 4)
        let shared = BatchRunner.sharedStills(prepared.jobs.map(\.job))
        // The logo is every row's; a.jpg and b.png are two rows' each.
        #expect(shared.count == 3 && shared.contains { $0.hasSuffix("logo.png") }, "\(shared)")
        // Another batch running at the same time in this process shares its own pictures.
        let other = SharedPictures.share([Job.canonical(repositoryRoot.appendingPathComponent("Examples/a.jpg").path)])
        let outcomes = BatchRunner.run(prepared.jobs, settings: BatchSettings())
        SharedPictures.release(other)
        #expect(outcomes.allSatisfy { $0.status == "ok" }, "\(outcomes.map(\.reason))")
        let counts = ["logo.png", "a.jpg", "b.png"].map { SharedPictures.counts(of: examples.appendingPathComponent($0).path) }
        #expect(counts.map(\.decoded) == [1, 1, 1] && counts[0].asked >= 4 && counts[1].asked >= 2 && counts[2].asked >= 2, "\(counts)")
    }
}
