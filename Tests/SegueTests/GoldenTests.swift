import Foundation
import Testing
@testable import Segue

/// Small renders of every shipped preset, pinned by their framemd5 checksums, with a film
/// strip of their distinct frames (`NAME.png`, the frames stacked in the order they first
/// appear) so that a failing golden can show what changed. Set SEGUE_UPDATE_GOLDEN=1 to
/// rewrite both after an intended change of the pixels (and say why in the commit).
@Suite("Golden framemd5 renders")
struct GoldenTests {
    static let small = ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.2"]
    static let folder = repositoryRoot.appendingPathComponent("Tests/SegueTests/Golden")

    static let cases: [(String, String, [String])] = presetCases + motionCases

    /// The camera moves, and motion blur on a slide and a cube.
    static let motionCases: [(String, String, [String])] = {
        var cases: [(String, String, [String])] = []
        for kind in TransitionRegistry.cameraMoves { cases.append(("\(kind.name)-90x160", "crossfade", small + ["transition.kind=\(kind.name)"])) }
        cases.append(("slide-90x160-blur180", "slide", small + ["transition.motionBlur=180"]))
        cases.append(("stories-cube-90x160-blur360", "stories-cube", small + ["transition.motionBlur={shutter: 360, samples: 6}"]))
        return cases
    }()

    static let presetCases: [(String, String, [String])] = {
        let presets = (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Presets").path)) ?? []
        return presets.filter { $0.hasSuffix(".yaml") }.sorted().map { file in
            let name = String(file.dropLast(5))
            return (name + "-90x160", name, small)
        } + [("stories-cube-90x160-linear-fit", "stories-cube",
              ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.1", "fit=fit", "transition.curve=linear",
               "transition.perspective=300", "canvas.background=#204060"])]
    }()

    func job(preset: String, overrides: [String], output: String, threads: Int) throws -> Job {
        let preset = try Preset.load(repositoryRoot.appendingPathComponent("Presets/\(preset).yaml").path, overrides: PresetPatch(overrides: overrides))
        return try Job(preset: preset, inputs: [example("a.jpg"), example("b.png"), example("c.webp")], output: output, threads: threads)
    }

    func render(preset: String, overrides: [String], threads: Int) throws -> String {
        let out = temporaryFolder().appendingPathComponent("golden.framemd5").path
        try Exporter.run(job(preset: preset, overrides: overrides, output: out, threads: threads))
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    /// Each frame's MD5, in order, from framemd5 text.
    static func digests(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
    }

    /// The frames of a render, as images, from a folder of PNG frames.
    func frames(preset: String, overrides: [String]) throws -> [Image] {
        let folder = temporaryFolder().appendingPathComponent("frames").path
        try Exporter.run(job(preset: preset, overrides: overrides, output: folder, threads: 2))
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { try Image.decode(path: folder + "/" + $0) }
    }

    /// The distinct frames in the order they first appear, stacked into one picture.
    static func strip(_ frames: [Image], digests: [String]) -> FrameBuffer {
        var seen = Set<String>(), distinct: [Image] = []
        for (frame, digest) in zip(frames, digests) where seen.insert(digest).inserted { distinct.append(frame) }
        let width = distinct[0].width, height = distinct[0].height
        let strip = FrameBuffer(width: width, height: height * distinct.count)
        for (i, frame) in distinct.enumerated() {
            frame.pixels.withUnsafeBufferPointer { (strip.pixels + i * width * height).update(from: $0.baseAddress!, count: width * height) }
        }
        return strip
    }

    /// Compares the frames that differ from the golden's with its film strip: writes the
    /// rendered frame, the expected one and a difference picture (|a - b| x 4) for each, and
    /// says how many pixels differ by how much.
    func explain(name: String, preset: String, overrides: [String], expected: String, actual: String) throws -> String {
        let want = GoldenTests.digests(expected), got = GoldenTests.digests(actual)
        guard want.count == got.count else { return "\(name): \(got.count) frames rendered, \(want.count) expected" }
        let stripURL = GoldenTests.folder.appendingPathComponent("\(name).png")
        guard let strip = try? Image.decode(path: stripURL.path) else { return "\(name): no film strip \(stripURL.lastPathComponent) to compare with" }
        var order: [String] = []
        for digest in want where !order.contains(digest) { order.append(digest) }
        let rendered = try frames(preset: preset, overrides: overrides)
        let width = rendered[0].width, height = rendered[0].height
        let out = temporaryFolder().appendingPathComponent("golden-\(name)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var lines: [String] = []
        for index in want.indices where want[index] != got[index] {
            guard let row = order.firstIndex(of: want[index]) else { continue }
            let expectedFrame = FrameBuffer(width: width, height: height), actualFrame = FrameBuffer(width: width, height: height)
            let diff = FrameBuffer(width: width, height: height)
            var differing = 0, largest = 0, total = 0
            for i in 0..<(width * height) {
                let e = strip.pixels[row * width * height + i], a = rendered[index].pixels[i]
                expectedFrame.pixels[i] = e
                actualFrame.pixels[i] = a
                let d = (0..<3).map { (channel: Int) -> Int in
                    let shift = UInt32(channel * 8)
                    return abs(Int((e >> shift) & 0xFF) - Int((a >> shift) & 0xFF))
                }
                let m = d.max()!
                if m > 0 { differing += 1; largest = max(largest, m); total += m }
                let channels = d.map { UInt32(min(255, $0 * 4)) }
                diff.pixels[i] = channels[0] | channels[1] << 8 | channels[2] << 16 | 0xFF00_0000
            }
            let stem = String(format: "%05d", index)
            try expectedFrame.writePNG(to: out.appendingPathComponent("expected-\(stem).png").path)
            try actualFrame.writePNG(to: out.appendingPathComponent("rendered-\(stem).png").path)
            try diff.writePNG(to: out.appendingPathComponent("difference-\(stem).png").path)
            lines.append(String(format: "frame %d: %d of %d pixels differ, by up to %d/255 (mean %.1f)", index, differing, width * height,
                                largest, differing > 0 ? Double(total) / Double(differing) : 0))
            if lines.count == 5 { break }
        }
        return "\(name): \(zip(want, got).filter { $0 != $1 }.count) frames differ from the golden; the first: "
            + lines.joined(separator: "; ") + ". Rendered, expected and difference pictures are in \(out.path)"
    }

    @Test("every shipped preset at 90x160, and variants", arguments: cases)
    func golden(name: String, preset: String, overrides: [String]) throws {
        let text = try render(preset: preset, overrides: overrides, threads: 2)
        let url = GoldenTests.folder.appendingPathComponent("\(name).framemd5")
        if ProcessInfo.processInfo.environment["SEGUE_UPDATE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
            let strip = GoldenTests.strip(try frames(preset: preset, overrides: overrides), digests: GoldenTests.digests(text))
            try strip.writePNG(to: GoldenTests.folder.appendingPathComponent("\(name).png").path)
        }
        let golden = try #require(try? String(contentsOf: url, encoding: .utf8), "no golden file \(url.lastPathComponent); run the tests once with SEGUE_UPDATE_GOLDEN=1")
        if text != golden {
            Issue.record(Comment(rawValue: try explain(name: name, preset: preset, overrides: overrides, expected: golden, actual: text)))
        }
        #expect(try render(preset: preset, overrides: overrides, threads: 1) == golden)
    }

    @Test("a golden that fails says which frames differ, by how much, and writes the pictures")
    func explainsFailures() throws {
        let (name, preset, overrides) = GoldenTests.cases.first { $0.0 == "crossfade-90x160" }!
        let golden = try String(contentsOf: GoldenTests.folder.appendingPathComponent("\(name).framemd5"), encoding: .utf8)
        // The same render with the images letterboxed on red: every frame that shows the
        // letterbox differs.
        let changed = overrides + ["canvas.background=#FF0000", "fit=fit"]
        let text = try render(preset: preset, overrides: changed, threads: 2)
        let message = try explain(name: name, preset: preset, overrides: changed, expected: golden, actual: text)
        let pattern = #"frames differ from the golden; the first: frame (\d+): \d+ of 14400 pixels differ, by up to \d+/255 \(mean [0-9.]+\)"#
        let match = try #require(message.range(of: pattern, options: .regularExpression), "\(message)")
        let frame = try #require(Int(message[match].split(separator: " ")[8].dropLast()), "\(message)")
        let folder = try #require(message.components(separatedBy: "pictures are in ").last)
        let stem = String(format: "%05d", frame)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder))
            .isSuperset(of: ["expected-\(stem).png", "rendered-\(stem).png", "difference-\(stem).png"]), "\(message)")
        // The difference picture is black where the frames agree and bright where they do not.
        let difference = try Image.decode(path: folder + "/difference-\(stem).png")
        #expect(difference.pixels.contains { $0 & 0xFFFFFF != 0 })
    }
}
