import Foundation
import Testing
@testable import Segue

@Suite("Templates in bulk")
struct TemplateBatchTests {
    /// The template card.yaml over the rows of rows.csv in `folder`, each row written to
    /// `output` (in the folder), and its jobs checked as a batch does.
    static func rows(in folder: URL, output: String, settings: BatchSettings = BatchSettings()) throws
        -> (template: StoryTemplate, prepared: (jobs: [BatchJob], problems: [(entry: Manifest.Entry, problems: [String])])) {
        let template = try StoryTemplate.load(folder.appendingPathComponent("card.yaml").path)
        let rows = Manifest.rows(of: template, data: try TemplateData.load(folder.appendingPathComponent("rows.csv").path),
                                 output: folder.path + "/" + output)
        return (template, BatchRunner.prepare(rows.manifest.entries, settings: settings))
    }

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
        let other = SharedPictures.share([Paths.canonical(repositoryRoot.appendingPathComponent("Examples/a.jpg").path)])
        let run = BatchRunner.run(prepared.jobs, settings: BatchSettings())
        let otherUses = SharedPictures.release(other)
        #expect(run.outcomes.allSatisfy { $0.status == .ok }, "\(run.outcomes.map(\.reason))")
        // The batch says what it shared: each picture decoded once, used by every row that draws it.
        let counts = ["logo.png", "a.jpg", "b.png"].map { name in run.shared.first { $0.file == Paths.canonical(examples.appendingPathComponent(name).path) } }
        #expect(counts.map { $0?.decoded } == [1, 1, 1] && counts.map { $0?.kind } == [.picture, .picture, .picture], "\(run.shared)")
        #expect((counts[0]?.uses ?? 0) >= 4 && (counts[1]?.uses ?? 0) >= 2 && (counts[2]?.uses ?? 0) >= 2, "\(run.shared)")
        // The other batch's report is of its own picture (which other tests of this process
        // may draw meanwhile), none of this batch's.
        #expect(otherUses.map(\.file) == [Paths.canonical(repositoryRoot.appendingPathComponent("Examples/a.jpg").path)], "\(otherUses)")
    }

    @Test("music every row plays is decoded once for the batch, each row's sound the same bytes as the row rendered alone; a longer row decodes it again")
    func sharedMusicDecodedOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("segue-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A photo of its own: a batch counts only the decodes made while it runs, and other
        // tests of this process, at the same time, run batches that keep the Examples pictures.
        let photo = folder.appendingPathComponent("a.jpg")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Examples/a.jpg"), to: photo)
        // 1.3 s at 44.1 kHz: resampled, and looped under the longer rows.
        let music = folder.appendingPathComponent("music.m4a").path
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=1.3", "-f", "lavfi",
                    "-i", "anoisesrc=d=1.3:a=0.05:r=44100", "-filter_complex", "amix=inputs=2", "-c:a", "aac", music])
        try """
            vars: {name: ~, hold: 1}
            preset: crossfade
            audio: {file: music.m4a, fadeIn: 0.2, fadeOut: 0.3, loop: true}
            set: {canvas.size: [90, 160], canvas.scale: 0.25, hold: "{{hold}}"}
            overlays: [{text: "{{name}}", size: 10}]
            slides: [{image: \(photo.path)}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        try "id,name,hold\nr0,Ana,2\nr1,Bo,2\nr2,Cy,2\nr3,Di,3\n".write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
        let (template, prepared) = try TemplateBatchTests.rows(in: folder, output: "out/{{id}}.mp4")
        #expect(prepared.problems.isEmpty && prepared.jobs.count == 4, "\(prepared.problems)")
        let run = BatchRunner.run(prepared.jobs, settings: BatchSettings())
        #expect(run.outcomes.allSatisfy { $0.status == .ok }, "\(run.outcomes.map(\.reason))")
        // Rows 0 to 2 play the first 2 s: decoded by row 0; row 3 plays 3 s, more than was kept.
        #expect(run.shared.filter { $0.kind == .sound } == [SharedInput(file: Paths.canonical(music), kind: .sound, decoded: 2, uses: nil)], "\(run.shared)")
        // The photo every row shows, decoded once.
        #expect(run.shared.filter { $0.kind == .picture }.map(\.decoded) == [1], "\(run.shared)")
        // Each row alone (nothing kept), its sound decoded from the file.
        for (index, id) in ["r0", "r3"].enumerated() {
            let job = try Job(story: try template.story(["name": "Alone", "hold": index == 0 ? "2" : "3"]), preset: prepared.jobs[index == 0 ? 0 : 3].job.preset,
                              output: folder.path + "/\(id)-alone.mp4").delivering { $0.threads = 1 }
            _ = try Exporter.run(job)
        }
        func sound(_ name: String) throws -> Data {
            let raw = folder.appendingPathComponent(name + ".f32").path
            try ffmpeg(["-i", folder.appendingPathComponent(name).path, "-map", "0:a", "-f", "f32le", raw])
            return try Data(contentsOf: URL(fileURLWithPath: raw))
        }
        let alone = try sound("r0-alone.mp4")
        #expect(alone.count > 48000 * 2 * 4, "\(alone.count) bytes")
        for id in ["r0", "r1", "r2"] { #expect(try sound("out/\(id).mp4") == alone, "\(id)") }
        #expect(try sound("out/r3.mp4") == sound("r3-alone.mp4"))
        // Two rows at a time: both may decode and keep, the others are given what was kept.
        let twoAtOnce = try TemplateBatchTests.rows(in: folder, output: "two/{{id}}.mp4", settings: BatchSettings(parallel: 2)).prepared.jobs
        #expect(BatchRunner.run(twoAtOnce, settings: BatchSettings(parallel: 2)).outcomes.allSatisfy { $0.status == .ok })
        for id in ["r0", "r1", "r2"] { #expect(try sound("two/\(id).mp4") == alone, "\(id)") }
        #expect(try sound("two/r3.mp4") == sound("r3-alone.mp4"))
    }

    @Test("one job at a time, each job's storyboard is made while the job before it runs: the same frames as each job alone, and a job that cannot be read fails alone with the error it has alone")
    func jobsReadiedAhead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("segue-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
        try """
            vars: {name: ~, photo: ~}
            preset: stories-cube
            set: {canvas.size: [90, 160], canvas.scale: 0.25, hold: 0.4, motion.kind: in}
            overlays: [{text: "{{name}}", size: 10}]
            slides: [{image: "{{photo}}"}, {image: \(repositoryRoot.appendingPathComponent("Examples/b.png").path)}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        let a = repositoryRoot.appendingPathComponent("Examples/a.jpg").path, c = repositoryRoot.appendingPathComponent("Examples/c.webp").path
        try "id,name,photo\nr0,Ana,\(a)\nr1,Bo,broken.jpg\nr2,Cy,\(c)\nr3,Di,\(a)\n".write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
        let prepared = try TemplateBatchTests.rows(in: folder, output: "out/{{id}}.framemd5").prepared
        // The broken photo has a name that says JPEG: it is only found out when decoded.
        #expect(prepared.problems.isEmpty && prepared.jobs.count == 4, "\(prepared.problems)")
        let outcomes = BatchRunner.run(prepared.jobs, settings: BatchSettings()).outcomes
        // Rows 2 and 3 were readied while the row before them ran; row 1's readying found the
        // broken photo, and the row failed.
        #expect(outcomes.map(\.readiedAhead) == [nil, nil, true, true], "\(outcomes.map(\.readiedAhead))")
        #expect(outcomes.map(\.status) == [.ok, .failed, .ok, .ok], "\(outcomes.map(\.reason))")
        for (index, job) in prepared.jobs.enumerated() {
            let alone = job.job.delivering { $0.output = folder.path + "/alone-\(index).framemd5" }
            if index == 1 {
                var message = ""
                do { try Exporter.run(alone) } catch { message = "\(error)" }
                #expect(outcomes[1].reason == message && message.contains("broken.jpg"), "\(outcomes[1].reason ?? "") against \(message)")
                continue
            }
            try Exporter.run(alone)
            let batch = try String(contentsOfFile: job.job.output, encoding: .utf8), lone = try String(contentsOfFile: alone.output, encoding: .utf8)
            #expect(batch == lone && batch.split(separator: "\n").count > 10, "row \(index)")
        }
        // Nothing half-written where the broken row would have gone.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out/r1.framemd5"))
    }

    @Test("rows read their preset once between them: rows that give its own variables the same values share one preset, rows that give others get their own, and a row whose preset cannot be read says so as it would alone")
    func presetReadOncePerValues() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("segue-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            vars: {shade: ~}
            extends: crossfade
            canvas: {background: "{{shade}}"}
            """.write(to: folder.appendingPathComponent("tone.yaml"), atomically: true, encoding: .utf8)
        try """
            vars: {name: ~, hold: 1}
            preset: tone.yaml
            set: {canvas.size: [90, 160], canvas.scale: 0.25, hold: "{{hold}}"}
            overlays: [{text: "{{name}}", size: 10}]
            slides: [{image: \(repositoryRoot.appendingPathComponent("Examples/a.jpg").path)}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        try """
            id,name,shade,hold
            r0,Ana,#102030,1
            r1,Bo,#102030,1
            r2,Cy,#405060,1
            r3,Di,#102030,2
            r4,Ed,#102030,1
            r5,Fa,teal-ish,1
            r6,Gu,teal-ish,1
            """.write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
        let prepared = try TemplateBatchTests.rows(in: folder, output: "out/{{id}}.framemd5").prepared
        let jobs = prepared.jobs.map(\.job)
        #expect(jobs.count == 5, "\(prepared.problems)")
        guard jobs.count == 5 else { return }
        // Each row's preset has the row's own values.
        #expect(jobs.map { $0.preset.canvas.background } == ["#102030", "#102030", "#405060", "#102030", "#102030"].map { Color(parsing: $0)! })
        #expect(jobs.map(\.preset.hold) == [1, 1, 1, 2, 1])
        // Rows 0, 1 and 4 gave the same values: one preset between them; rows 2 and 3 their own.
        #expect(jobs[0].sharesPreset(with: jobs[1]) && jobs[0].sharesPreset(with: jobs[4]))
        #expect(!jobs[0].sharesPreset(with: jobs[2]) && !jobs[0].sharesPreset(with: jobs[3]) && !jobs[2].sharesPreset(with: jobs[3]))
        // The rows whose colour is no colour fail each with the error the story has alone.
        var alone = ""
        do { _ = try Job(story: try Story.load(folder.appendingPathComponent("card.yaml").path, vars: ["name": "Fa", "shade": "teal-ish"]),
                         preset: try Preset.load(folder.appendingPathComponent("tone.yaml").path, vars: ["shade": "teal-ish"]), output: folder.path + "/x.framemd5") } catch { alone = "\(error)" }
        #expect(prepared.problems.map(\.entry.number) == [6, 7])
        #expect(prepared.problems.allSatisfy { $0.problems.count == 1 && $0.problems[0].contains("teal-ish") } && alone.contains("teal-ish"), "\(prepared.problems.map(\.problems)) against \(alone)")
    }
}
