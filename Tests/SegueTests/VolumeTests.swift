import Foundation
import SegueTestSupport
import Testing
@testable import Segue
import CSegueAV

/// Readers of the user's data do work in proportion to it: ten times the items take about ten
/// times the work (a per-item rescan would take a hundred). The work is counted where it is
/// done (`WorkCounts`: bytes a reader looks at, search steps, file lookups, presets read,
/// files digested), at two sizes; no test here looks at a clock. `scripts/bench --only rows`
/// prints the times.
@Suite("At volume: readers in proportion to their data")
struct VolumeTests {
    /// The work `body` does, counted.
    static func counted<T>(_ body: () throws -> T) rethrows -> (T, WorkCounts) {
        let counts = WorkCounts()
        return (try counts.counting(body), counts)
    }

    /// An SRT file of `count` cues of four lines each (number, times, text, blank line).
    static func srt(_ count: Int, in folder: URL) throws -> String {
        var text = ""
        text.reserveCapacity(count * 48)
        for k in 0..<count {
            let start = k * 500, end = start + 400
            func time(_ ms: Int) -> String { String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000) }
            text += "\(k + 1)\n\(time(start)) --> \(time(end))\nword \(k)\n\n"
        }
        let path = folder.appendingPathComponent("cues-\(count).srt").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("50,000 cues take ten times the work of 5,000: the file read once to index its lines, each cue's line a binary search")
    func cuesInProportion() throws {
        let folder = temporaryFolder()
        let small = try VolumeTests.srt(5_000, in: folder), large = try VolumeTests.srt(50_000, in: folder)
        let (few, fewWork) = try VolumeTests.counted { try Captions.cues(small) }
        let (cues, manyWork) = try VolumeTests.counted { try Captions.cues(large) }
        #expect(few.count == 5_000 && cues.count == 50_000)
        // Each cue's line, from the one pass over the file: four lines a cue.
        let first = try #require(cues.first).line
        #expect(first >= 1 && first <= 2, "\(first)")
        #expect(cues.indices.allSatisfy { cues[$0].line == first + 4 * $0 }, "\(cues.prefix(3).map(\.line)) ... \(cues.suffix(2).map(\.line))")
        #expect(cues[49_999].text == "word 49999" && cues[49_999].start == 24_999.5)
        // The file's bytes once each; for each cue a search of at most log2(lines) + 1 steps
        // for its place, and log2(cues) + 1 for its times' line.
        let sizes = (try VolumeTests.size(small), try VolumeTests.size(large))
        #expect(fewWork[.bytesScanned] == sizes.0 && manyWork[.bytesScanned] == sizes.1)
        for (count, work) in [(5_000, fewWork), (50_000, manyWork)] {
            let lines = 4 * count, bound = count * (Int(log2(Double(lines))) + 1 + Int(log2(Double(count))) + 1)
            #expect(work[.searchSteps] > count && work[.searchSteps] <= bound, "\(count) cues: \(work[.searchSteps]) steps, over \(bound)")
        }
    }

    @Test("50,000 rows of CSV and of JSON Lines take ten times the work of 5,000: each byte looked at once")
    func rowsInProportion() throws {
        let folder = temporaryFolder()
        func files(_ count: Int) throws -> (csv: String, jsonl: String) {
            var csv = "id,name,photo\n", jsonl = ""
            for k in 0..<count {
                csv += "r\(k),\"Name, \(k)\",p\(k % 7).jpg\n"
                jsonl += "{\"id\": \"r\(k)\", \"name\": \"Name \(k)\", \"photo\": \"p\(k % 7).jpg\"\(k % 3 == 0 ? ", \"extra\": \(k)" : "")}\n"
            }
            let base = folder.appendingPathComponent("rows-\(count)").path
            try csv.write(toFile: base + ".csv", atomically: true, encoding: .utf8)
            try jsonl.write(toFile: base + ".jsonl", atomically: true, encoding: .utf8)
            return (base + ".csv", base + ".jsonl")
        }
        let small = try files(5_000), large = try files(50_000)
        for pick in [\(csv: String, jsonl: String).csv, \.jsonl] {
            let (few, fewWork) = try VolumeTests.counted { try TemplateData.load(small[keyPath: pick]) }
            #expect(few.rows.count == 5_000)
            let (data, manyWork) = try VolumeTests.counted { try TemplateData.load(large[keyPath: pick]) }
            let rows = data.rows
            #expect(rows.count == 50_000 && rows[49_999].values["name"]?.hasSuffix("49999") == true)
            #expect(rows[49_999].line == (pick == \.csv ? 50_001 : 50_000), "\(rows[49_999].line)")
            #expect(data.columns.sorted() == (pick == \.csv ? ["id", "name", "photo"] : ["extra", "id", "name", "photo"]))
            let sizes = (try VolumeTests.size(small[keyPath: pick]), try VolumeTests.size(large[keyPath: pick]))
            #expect(fewWork[.bytesScanned] == sizes.0 && manyWork[.bytesScanned] == sizes.1, "\(small[keyPath: pick])")
        }
    }

    @Test("a template's rows are planned in proportion, a shared photo read once, with the fingerprints each row has alone")
    func planningInProportion() throws {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Examples/\(name)"), to: folder.appendingPathComponent(name))
        }
        try """
            vars: {name: ~, photo: ~}
            preset: crossfade
            set: {canvas.size: [90, 160], canvas.scale: 0.25, hold: 1}
            overlays: [{text: "{{name}}", size: 10}]
            slides: [{image: "{{photo}}"}, {image: b.png}]
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        let template = try StoryTemplate.load(folder.appendingPathComponent("card.yaml").path)
        func plan(_ count: Int) throws -> (jobs: [BatchJob], problems: [(entry: Manifest.Entry, problems: [String])]) {
            var csv = "id,name,photo\n"
            for k in 0..<count { csv += "r\(k),Name \(k),\(k % 2 == 0 ? "a.jpg" : "b.png")\n" }
            let path = folder.appendingPathComponent("rows-\(count).csv").path
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            let rows = Manifest.rows(of: template, data: try TemplateData.load(path), output: folder.path + "/out/{{id}}.mp4")
            // With --resume, as fingerprints are compared before rendering only then.
            return BatchRunner.prepare(rows.manifest.entries, settings: BatchSettings(resume: true))
        }
        var planned = try plan(2)
        // A row's fingerprint in the batch is the one it has planned alone.
        #expect(planned.problems.isEmpty && planned.jobs.count == 2)
        for job in planned.jobs { #expect(job.fingerprint == (try Fingerprint.of(job.job))) }
        #expect(planned.jobs[0].fingerprint != planned.jobs[1].fingerprint)

        let few: WorkCounts, many: WorkCounts
        (planned, few) = try VolumeTests.counted { try plan(400) }
        #expect(planned.jobs.count == 400)
        (planned, many) = try VolumeTests.counted { try plan(4_000) }
        #expect(planned.jobs.count == 4_000 && planned.problems.isEmpty)
        // Every row once through the rows and once through the plan; the preset read once for
        // all; the two photos digested once each; the file system asked in proportion (each
        // row's own output), not once more for every row before it.
        #expect(few[.entriesPlanned] == 800 && many[.entriesPlanned] == 8_000)
        #expect(few[.presetsRead] == many[.presetsRead] && many[.presetsRead] <= 2, "\(few[.presetsRead]) and \(many[.presetsRead]) presets read")
        #expect(few[.filesDigested] == 2 && many[.filesDigested] == 2)
        #expect(many[.fileLookups] >= 4_000 && many[.fileLookups] <= 11 * few[.fileLookups],
                "400 rows \(few[.fileLookups]) file lookups, 4,000 rows \(many[.fileLookups])")

        // The shared files' digests: each read once however many rows ask.
        let digests = Fingerprint.Digests()
        for job in planned.jobs.prefix(50) { _ = try Fingerprint.of(job.job, digests: digests) }
        #expect(digests.reads == 2)
    }

    @Test("a frame of a story of 5,000 slides finds its moment by a search: the moment a walk through every cut finds")
    func momentsBySearch() throws {
        var generator = SystemRandomNumberGenerator()
        // Holds and cuts of every kind: zero (hard cuts, flashes), whole frames and not.
        let holds = (0..<5_000).map { k in k % 7 == 0 ? 0 : Double(Int.random(in: 0...40, using: &generator)) / 30 + (k % 3 == 0 ? 0.013 : 0) }
        let durations = (0..<4_999).map { k in k % 5 == 0 ? 0 : Double(Int.random(in: 1...20, using: &generator)) / 30 }
        let fps = FrameRate(30)
        let timeline = Timeline(holds: holds, fps: fps, durations: durations) { _, t in t }
        // The walk moment(at:) once made for every frame.
        var starts: [Double] = [], t = 0.0
        for (hold, d) in zip(holds, durations) { t += hold; starts.append(t); t += d }
        var step = -1
        for index in 0..<timeline.frameCount {
            let time = fps.time(ofFrame: index)
            while step + 1 < starts.count, starts[step + 1] <= time { step += 1 }
            let expected: Moment
            if step < 0 {
                expected = .hold(index: 0)
            } else if time - starts[step] >= durations[step] {
                expected = .hold(index: step + 1)
            } else {
                let linear = (time - starts[step]) / durations[step]
                expected = .transition(step: step, progress: linear, linear: linear)
            }
            #expect(timeline.moment(at: index) == expected, "frame \(index)")
            if timeline.moment(at: index) != expected { break }
        }
    }

    @Test("a frame looks only at the screen's overlays of its second: the same overlays, in the same order, as looking at all")
    func overlaysBySecond() throws {
        var generator = SystemRandomNumberGenerator()
        let length = 61.5
        let placed = (0..<400).map { k -> OverlayPictures.Placed in
            var overlay = Overlay(text: "cue \(k)")
            let start = Double.random(in: -1...length + 1, using: &generator)
            switch k % 5 {
            case 0: overlay.span = Span(start: start)                                     // open to the end
            case 1: overlay.span = Span(start: start, end: .at(start + 0.01))             // a blink
            case 2: overlay.span = Span(start: start, end: .after(Double.random(in: 0...20, using: &generator)))
            case 3: overlay.span = Span(start: start, end: .at(start))                     // never shows
            default: overlay.span = Span(start: Double(Int(start)), end: .at(Double(Int(start)) + 1))  // whole seconds
            }
            return OverlayPictures.Placed(overlay: overlay, source: .overlay(k), size: Size(width: 1, height: 1),
                                          block: Rect(size: Size(width: 1, height: 1)), drawn: Size(width: 1, height: 1))
        }
        let seconds = OverlaySeconds(placed, length: length)
        for frame in 0...Int(length * 30) {
            let time = Double(frame) / 30
            let all = placed.indices.filter { placed[$0].state(at: time, length: length) != nil }
            let looked = seconds.candidates(at: time).filter { placed[$0].state(at: time, length: length) != nil }
            #expect(looked == all, "at \(time) s")
            if looked != all { break }
        }
        // Those that end, by when, earliest first; how many end before a time.
        #expect(zip(seconds.ends, seconds.ends.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(seconds.endedCount(before: 30) == placed.filter { ($0.overlay.span.endTime ?? .infinity) < 30 }.count)
    }

    /// A WAV file of `seconds` of a tone, 16-bit PCM at 48 kHz, with `channels` channels.
    static func tone(_ seconds: Double, channels: Int, in folder: URL, name: String) throws -> String {
        let count = Int(seconds * 48_000)
        var pcm = Data(capacity: count * channels * 2)
        for i in 0..<count {
            let value = Int16(8_000 * sin(2 * Double.pi * 440 * Double(i) / 48_000))
            for _ in 0..<channels { withUnsafeBytes(of: value.littleEndian) { pcm.append(contentsOf: $0) } }
        }
        func le<T: FixedWidthInteger>(_ v: T) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
        var wav = Data("RIFF".utf8) + le(UInt32(36 + pcm.count)) + Data("WAVEfmt ".utf8)
        wav += le(UInt32(16)) + le(UInt16(1)) + le(UInt16(channels)) + le(UInt32(48_000))
        wav += le(UInt32(48_000 * channels * 2)) + le(UInt16(channels * 2)) + le(UInt16(16))
        wav += Data("data".utf8) + le(UInt32(pcm.count)) + pcm
        let path = folder.appendingPathComponent(name).path
        try wav.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a soundtrack of 40 voices, each ducking the music, takes twice the mixing work of 20 over twice the time, not four times")
    func voicesInProportion() throws {
        let folder = temporaryFolder()
        let music = try VolumeTests.tone(2, channels: 2, in: folder, name: "music.wav")
        let voice = try VolumeTests.tone(0.3, channels: 1, in: folder, name: "voice.wav")
        func work(_ voices: Int) throws -> (Int, SegueLoudness) {
            var settings = Preset.AudioSettings()
            settings.source = .file(music)
            // A voice a second, further apart than the attack and release: each its own duck.
            let sounds = (0..<voices).map { k in
                Sound(path: voice, part: Span(start: 0, length: 0.3), at: Double(k) + 0.25, volume: 1, fadeIn: 0.02, fadeOut: 0.02)
            }
            let track = Soundtrack(music: settings, sounds: sounds)
            #expect(track.ducks.count == voices)
            let (loudness, counts) = try VolumeTests.counted { try track.measure(frames: voices * 30, fps: FrameRate(30)) }
            return (counts[.soundBlocks], loudness)
        }
        let (few, fewLoudness) = try work(20), (many, manyLoudness) = try work(40)
        #expect(few > 0 && fewLoudness.integrated > -40 && manyLoudness.integrated > -40)
        // Twice the voices over twice the time: twice the blocks through twice the graphs' filters.
        // (One graph holding every voice and every duck grew with their square.)
        let ratio = Double(many) / Double(few)
        #expect(ratio > 1.8 && ratio < 2.2, "20 voices: \(few) filter blocks, 40: \(many) (\(ratio)×)")
    }

    @Test("a cue highlighted word by word is laid out once, at 1,000 words as at 2,000: every word's overlay shares the cue's one string")
    func wordsInProportion() throws {
        let folder = temporaryFolder()
        func laidOut(_ words: Int) throws -> (overlays: [Overlay], layouts: Int) {
            let srt = folder.appendingPathComponent("words-\(words).srt").path
            try "1\n00:00:00,000 --> 00:00:20,000\n\((0..<words).map { "w\($0)" }.joined(separator: " "))\n\n".write(toFile: srt, atomically: true, encoding: .utf8)
            // Small enough that 2,000 words fit a picture's 16384 pixels.
            let node = try ConfigNode.parse(yaml: "{file: \(srt), words: highlight, size: 4}", name: "story.yaml")
            let (overlays, counts) = try VolumeTests.counted {
                let overlays = try Captions.overlays(node, key: "captions", preset: Preset())
                _ = try OverlayPictures(slides: [], screen: overlays, canvas: Preset().canvas)
                return overlays
            }
            return (overlays, counts[.textLayouts])
        }
        let few = try laidOut(1_000), many = try laidOut(2_000)
        #expect(few.overlays.count == 1_000 && many.overlays.count == 2_000)
        #expect(few.layouts == 1 && many.layouts == 1, "\(few.layouts) and \(many.layouts) layouts")
        // The word spoken is a range of the one text: the 1,500th word is w1499.
        let word = try #require(many.overlays[1_499].highlight)
        let scalars = Array(many.overlays[1_499].text.unicodeScalars)[word.scalars]
        #expect(String(String.UnicodeScalarView(scalars)) == "w1499")
    }
}
