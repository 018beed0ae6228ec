import Foundation
import SegueTestSupport
import Testing
@testable import Segue

/// `timing: beats`: the fit of cuts to grid points, the grid's points from the music's beats,
/// bars and onsets, the settings and their errors, and the analysis done once for many jobs.
@Suite("Timing on the beat: cuts moved onto the music's grid")
struct BeatTimingTests {
    @Test("each cut goes to the point nearest its hold's, within its bounds; a clip keeps its length or only shrinks")
    func fit() {
        let points = stride(from: 0.0, through: 30, by: 1).map { $0 }
        let free = { (hold: Double) in BeatFit.Bounds(hold: hold, min: hold / 2, max: hold * 2) }
        // Holds 1.7, 2.2 (a hard cut), 1.4; transitions of 0.5 s centred on their points.
        let fitted = BeatFit(bounds: [free(1.7), free(2.2), free(1.4)], durations: [0.5, 0], points: points)
        #expect(fitted.placed.map(\.placed) == [2, 4, 5])
        #expect(fitted.holds == [1.75, 1.75, 1])
        #expect(fitted.placed.map(\.point) == [2, 4, 5])
        // A fixed screen keeps its hold and moves the next ones; a shrinking one takes the last point within it.
        let clip = BeatFit(bounds: [BeatFit.Bounds(hold: 2.6, min: 1, max: 6, change: .fixed), free(2),
                                    BeatFit.Bounds(hold: 2.9, min: 1, max: 6, change: .shorter), free(1)],
                           durations: [0, 0, 0], points: points)
        #expect(clip.holds[0] == 2.6 && clip.placed[0].point == nil && clip.placed[0].why?.contains("fit: cut") == true)
        #expect(clip.placed[1].placed == 5 && clip.placed[2].placed == 7 && clip.holds[2] == 2)
        // No point within the bounds: the cut stays where its hold puts it, saying why.
        let sparse = BeatFit(bounds: [free(1), free(1)], durations: [0], points: [0, 10])
        #expect(sparse.placed[0].point == nil && sparse.holds == [1, 1] && sparse.placed[0].why?.contains("0.50...2.00") == true)
        let past = BeatFit(bounds: [free(1), free(1)], durations: [0], points: [0, 0.3])
        #expect(past.placed[0].why == "past the music's last beat")
        // Moved: from where the holds asked for it.
        #expect(fitted.placed[1].asked == 1.7 + 0.5 + 2.2 && abs(fitted.placed[1].moved - (4 - 4.4)) < 1e-9)
    }

    /// A grid of `count` beats, 0.5 s apart from 0.25 s, bars of four from the third beat.
    static let grid = BeatGrid(bpm: 120, beats: (0..<16).map { 0.25 + 0.5 * Double($0) },
                               downbeats: stride(from: 2, to: 16, by: 4).map { 0.25 + 0.5 * Double($0) }, meter: 4,
                               onsets: [0.3, 1.1, 2.9], confidence: 0.9, seconds: 8)

    @Test("the points: every Nth beat from the first bar, every Nth bar, the onsets; offset, the music's start and its loop")
    func points() throws {
        var timing = BeatTiming()
        timing.every = 2
        let beats = timing.points(of: Self.grid, start: 0, loop: false, upTo: 100)
        #expect(beats.map(\.time) == [0.25, 1.25, 2.25, 3.25, 4.25, 5.25, 6.25, 7.25])
        #expect(beats[1].label == "beat 3 (bar 1, beat 1)" && beats[0].label == "beat 1 (bar 0, beat 3)")
        timing.on = .downbeat
        timing.every = 1
        #expect(timing.points(of: Self.grid, start: 0, loop: false, upTo: 100).map(\.time) == [1.25, 3.25, 5.25, 7.25])
        timing.on = .onset
        timing.offset = -0.1
        #expect(timing.points(of: Self.grid, start: 1, loop: false, upTo: 100).map { ($0.time * 1000).rounded() } == [0, 1800])
        // Looped from 1 s: the file plays again every 7 s less the seam's crossfade.
        timing = BeatTiming()
        timing.on = .downbeat
        let looped = timing.points(of: Self.grid, start: 1, loop: true, upTo: 20)
        let period = 7 - Double(960) / 48000
        #expect(looped.count == 12 && abs(looped[4].time - (0.25 + period)) < 1e-9 && looped[4].label == "bar 1, played again (2)", "\(looped)")
    }

    @Test("timing: beats, --set timing=beats with timing.every, durations in beats; errors name the key")
    func settings() throws {
        func preset(_ yaml: String, _ overrides: [String] = []) throws -> Preset {
            let folder = temporaryFolder()
            try ("extends: crossfade\n" + yaml).write(to: folder.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            return try Preset.load(folder.appendingPathComponent("p.yaml").path, overrides: PresetPatch(overrides: overrides))
        }
        #expect(try preset("timing: beats\n").timing.mode == .on)
        #expect(try preset("timing: {beats: strict, every: 2, on: downbeat, fit: cut, min: 1}\n").timing
                == { var t = BeatTiming(); (t.mode, t.every, t.on, t.give, t.min) = (.strict, 2, .downbeat, .cut, 1); return t }())
        // A layer's key adds to the shorthand beneath it, in one layer or two.
        let layered = try preset("timing: beats\n", ["timing.every=4"]).timing
        #expect(layered.mode == .on && layered.every == 4)
        let both = try preset("hold: 1\n", ["timing=beats", "timing.every=3"]).timing
        #expect(both.mode == .on && both.every == 3)
        #expect(try preset("timing: beats\ntransition: {duration: 2b}\n").transition.durationBeats == 2)
        #expect(try preset("timing: beats\ntransition: {duration: 2b}\n").transition.timed(beat: 0.4).duration == 0.8)

        func refused(_ yaml: String, _ key: String, _ words: String) {
            do {
                _ = try preset(yaml)
                Issue.record("\(yaml) was read")
            } catch {
                #expect("\(error)".contains(key) && "\(error)".contains(words), "\(error)")
            }
        }
        refused("transition: {duration: 1b}\n", "transition.duration", "needs timing: beats")
        refused("timing: {beats: maybe}\n", "timing.beats", "true, false or strict")
        refused("timing: {beats: true, on: onset, every: 2}\n", "timing.every", "on: onset")
        refused("timing: {beats: true, on: bar}\n", "timing.on", "downbeat")
        refused("timing: fast\n", "timing", "mapping")
    }

    @Test("a hundred rows of a template over one track analyse it once")
    func analysedOnce() throws {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Examples/\(name)"), to: folder.appendingPathComponent(name))
        }
        // Content no run had before: the cache on disk has not seen it.
        let music = try clickTrack(bpm: 120, seconds: 12, gain: 0.2 + Double.random(in: 0..<0.05), in: folder)
        defer { BeatCache.file(for: music).map { try? FileManager.default.removeItem(atPath: $0) } }
        try """
            vars: {name: ~}
            preset: crossfade
            audio: \((music as NSString).lastPathComponent)
            timing: {beats: true, every: 2}
            set: {canvas.size: [90, 160], canvas.scale: 0.25, hold: 1.8}
            overlays: [{text: "{{name}}", size: 10}]
            slides: [{image: a.jpg}, {image: b.png}, {image: a.jpg}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        let template = try StoryTemplate.load(folder.appendingPathComponent("card.yaml").path)
        var csv = "id,name\n"
        for k in 0..<100 { csv += "r\(k),Name \(k)\n" }
        try csv.write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
        let rows = Manifest.rows(of: template, data: try TemplateData.load(folder.appendingPathComponent("rows.csv").path), output: folder.path + "/out/{{id}}.mp4")
        let counts = WorkCounts()
        let planned = counts.counting { BatchRunner.prepare(rows.manifest.entries, settings: BatchSettings()) }
        #expect(planned.problems.isEmpty && planned.jobs.count == 100)
        #expect(counts[.soundsAnalysed] == 1, "\(counts[.soundsAnalysed]) analyses")
        // Every row on the same grid: cuts at 2 s and 4 s, the end at 6 s.
        for job in planned.jobs {
            #expect(job.job.beats?.placed.map { ($0.placed * 10).rounded() } == [20, 40, 60])
        }
        // Kept on disk, where the next process finds it.
        #expect(BeatCache.file(for: music).map { FileManager.default.fileExists(atPath: $0) } == true)
    }
}
