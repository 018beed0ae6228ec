import Foundation
import Testing
@testable import Segue

@Suite("Presets")
struct PresetTests {
    func preset(_ yaml: String, overrides: [String] = []) throws -> Preset {
        var node = try ConfigNode.parse(yaml: yaml, name: "preset test.yaml")
        for o in overrides { try node.apply(override: o) }
        return try Preset(node)
    }

    func message(_ yaml: String, overrides: [String] = []) -> String {
        do {
            _ = try preset(yaml, overrides: overrides)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test("the shipped stories-cube preset loads with the documented keys")
    func shipped() throws {
        let p = try Preset.load(repositoryRoot.appendingPathComponent("Presets/stories-cube.yaml").path)
        #expect(p.canvas.width == 1080 && p.canvas.height == 1920 && p.canvas.scale == 3 && p.canvas.background == .black)
        #expect(p.fps == 30 && p.hold == 2 && p.fit == .fill)
        #expect(p.transition.kind == "stories-cube" && p.transition.values == StoriesCube().values)
        #expect(p.transition.duration == 0.5 && p.transition.curve == .easeInEaseOut)
        #expect(p.encode.codec == .h264 && p.encode.crf == 20 && p.encode.speed == "veryfast" && p.encode.threads == 2)
        #expect(try Preset.load("stories-cube") == p)
    }

    @Test("--set overrides any key by its dotted path, the value read as YAML")
    func overrides() throws {
        let p = try preset("transition: {kind: stories-cube}",
                           overrides: ["transition.duration=0.4", "canvas.scale=1", "canvas.size=[90, 160]",
                                       "transition.perspective=500", "transition.curve=cubic-bezier(0, 0, 1, 1)"])
        #expect(p.transition.duration == 0.4 && p.canvas.scale == 1 && p.canvas.width == 90 && p.canvas.height == 160)
        #expect(p.transition.values == StoriesCube().with(StoriesCube.perspective, 500).values)
        #expect(p.transition.curve == .cubicBezier(0, 0, 1, 1))
    }

    @Test("an unknown key names the file, the line and the likely key")
    func unknownKey() {
        let m = message("fps: 30\ntransition:\n  kind: stories-cube\n  durration: 0.4\n")
        #expect(m.hasPrefix("preset test.yaml, line 4: unknown key 'transition.durration'. Did you mean 'duration'?"), "\(m)")
    }

    @Test("an unknown transition lists the known ones")
    func unknownTransition() {
        let m = message("transition:\n  kind: cubee\n")
        #expect(m == "preset test.yaml, line 2: 'transition.kind' is 'cubee' (expected one of: \(TransitionRegistry.names.joined(separator: ", ")))", "\(m)")
    }

    @Test("wrong types and values out of range say what is expected")
    func typesAndRanges() {
        let rates = "expected a frame rate from 1 to 240: 30, 29.97 (30000/1001), 23.976, 59.94 or a fraction N/D"
        #expect(message("fps: fast\ntransition: {kind: stories-cube}") == "preset test.yaml, line 1: 'fps' is 'fast' (\(rates))")
        #expect(message("fps: 1000\ntransition: {kind: stories-cube}") == "preset test.yaml, line 1: 'fps' is '1000' (\(rates))")
        #expect(message("fps: 30/0\ntransition: {kind: stories-cube}") == "preset test.yaml, line 1: 'fps' is '30/0' (\(rates))")
        #expect(message("transition: {kind: stories-cube}\ncanvas: {size: 1080}").contains("'canvas.size' is the number 1080 (expected a list of two whole numbers"))
        #expect(message("transition: {kind: stories-cube}\ncanvas: {background: '#ff000080'}").contains("expected an opaque color"))
        #expect(message("transition: {kind: stories-cube, perspective: 5}").contains("'transition.perspective' is 5, out of range (expected 100...100000)"))
    }

    @Test("an override's errors name the --set that caused them")
    func overrideErrors() {
        #expect(message("transition: {kind: stories-cube}", overrides: ["transition.duration=-1"])
                == "--set transition.duration=-1: 'transition.duration' is -1, out of range (expected 0...60)")
        #expect(message("transition: {kind: stories-cube}", overrides: ["nonsense"]).hasPrefix("--set nonsense: expected KEY=VALUE"))
        #expect(message("transition: {kind: stories-cube}", overrides: ["transition.kind.x=1"])
                == "--set transition.kind.x=1: 'transition.kind' is a mapping (expected a single value)")
    }

    @Test("broken YAML is a syntax error with its line")
    func syntax() {
        #expect(message("canvas: [1, 2\nfps: 3").hasPrefix("preset test.yaml: not valid YAML: line"))
    }

    @Test("a missing transition kind is reported")
    func missingKind() {
        #expect(message("fps: 30").contains("'transition.kind' is missing (expected one of: " + TransitionRegistry.names.joined(separator: ", ") + ")"))
    }

    @Test("an unknown preset name lists the built-in ones")
    func unknownName() {
        let library = PresetLibrary.builtIn
        #expect(throws: PresetError.self) { try library.source(for: "stories-cub") }
        do {
            _ = try library.source(for: "stories-cub")
        } catch {
            #expect("\(error)".contains("no preset named 'stories-cub' (shipped presets: " + shippedPresets.joined(separator: ", ")))
        }
        // The presets built in are those of Presets/, each once.
        #expect(library.names == shippedPresets && shippedPresets.count >= 8)
    }
}
