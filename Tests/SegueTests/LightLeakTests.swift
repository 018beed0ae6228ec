import Foundation
import Testing
@testable import Segue

@Suite("Light leaks: seeded glows screened over the story")
struct LightLeakTests {
    func frames(_ overlays: String, in folder: URL, name: String) throws -> [Image] {
        let path = folder.appendingPathComponent("\(name).yaml")
        try "slides: [{image: a.jpg, hold: 2}]\n\(overlays)".write(to: path, atomically: true, encoding: .utf8)
        let story = try Story.load(path.path)
        let preset = try Preset.load("crossfade", overrides: PresetPatch(overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25", "fps=10"]),
                                     underlying: story.settings)
        let out = folder.appendingPathComponent(name).path
        try Exporter.run(try Job(story: story, preset: preset, output: out, frames: FrameSelection(parsing: "0,4,8,12,19")!))
        return try FileManager.default.contentsOfDirectory(atPath: out).sorted().map { try Image.decode(path: out + "/" + $0) }
    }

    @Test("its light rises and falls over its time; the same seed draws the same, another seed another")
    func picture() {
        let leak = LightLeak(seed: 3, palette: .warm, intensity: 0.8)
        let black = [UInt32](repeating: 0xFF00_0000, count: 12 * 20)
        #expect(leak.picture(at: 0, width: 12, height: 20).pixels == black && leak.picture(at: 1, width: 12, height: 20).pixels == black)
        let middle = leak.picture(at: 0.5, width: 12, height: 20).pixels
        #expect(middle != black && middle == leak.picture(at: 0.5, width: 12, height: 20).pixels)
        #expect(middle != LightLeak(seed: 4, palette: .warm, intensity: 0.8).picture(at: 0.5, width: 12, height: 20).pixels)
        #expect(middle != LightLeak(seed: 3, palette: .cool, intensity: 0.8).picture(at: 0.5, width: 12, height: 20).pixels)
        // Brighter at its height than near its ends.
        func light(_ u: Double) -> Int { leak.picture(at: u, width: 12, height: 20).pixels.reduce(0) { $0 + Int($1 & 0xFF) } }
        #expect(light(0.5) > light(0.2) && light(0.2) > light(0.05))
    }

    @Test("screened over the story: frames outside its time are the story's, inside never darker, and lighter")
    func overTheStory() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        let plain = try frames("", in: folder, name: "plain")
        let leaked = try frames("overlays: [{leak: {seed: 3, color: gold, start: 0.3, duration: 1.2, intensity: 1}}]", in: folder, name: "leak")
        // Frames 0 and 19 (0 s, 1.9 s) are outside 0.3...1.5 s; 4, 8 and 12 inside.
        #expect(plain[0].pixels == leaked[0].pixels && plain[4].pixels == leaked[4].pixels)
        for k in [1, 2, 3] {
            let brighter = zip(plain[k].pixels, leaked[k].pixels).allSatisfy { p, l in
                (0..<3).allSatisfy { c in (l >> (8 * UInt32(c))) & 255 >= (p >> (8 * UInt32(c))) & 255 }
            }
            #expect(brighter && plain[k].pixels != leaked[k].pixels, "frame \(k)")
        }
    }

    @Test("an unknown palette or key is refused, naming it")
    func refusals() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        for (yaml, key) in [("overlays: [{leak: purple}]", "leak"), ("overlays: [{leak: {seed: 1, colour: warm}}]", "leak.colour"),
                            ("overlays: [{leak: {intensity: 2}}]", "leak.intensity")] {
            #expect { try frames(yaml, in: folder, name: "bad") } throws: { error in "\(error)".contains(key) }
        }
    }
}
