import Foundation
import Testing
@testable import Segue

/// `blend:` against W3C Compositing and Blending Level 1: a sticker of every colour and
/// alpha laid over a photo by each mode, its pixels against the formulas numpy computes on
/// the same inputs (Tests/Reference/blend.py), within one level.
@Suite("Blend modes: the W3C formulas, within one level")
struct BlendModeTests {
    static let width = 90, height = 160

    /// A sticker the canvas's size (drawn unscaled, a copy): hue across, alpha down, a few
    /// fully transparent and fully opaque rows.
    static func sticker(in folder: URL) throws -> String {
        let image = makeImage(width: width, height: height) { x, y in
            (UInt8(x * 255 / (width - 1)), UInt8((y * 7 + x * 3) % 256), UInt8(255 - y * 255 / (height - 1)))
        }
        let frame = FrameBuffer(width: width, height: height)
        for y in 0..<height {
            let alpha = UInt32(y < 8 ? 0 : y >= height - 8 ? 255 : (y * 255) / height)
            for x in 0..<width {
                let p = image.pixels[y * width + x]
                let channels = (0..<3).map { c in ((p >> (8 * UInt32(c))) & 255) * alpha / 255 }
                frame.pixels[y * width + x] = channels[0] | channels[1] << 8 | channels[2] << 16 | alpha << 24
            }
        }
        let path = folder.appendingPathComponent("sticker.png").path
        try frame.writePNG(to: path)
        return path
    }

    func frame(story yaml: String, in folder: URL, name: String) throws -> Image {
        let path = folder.appendingPathComponent("\(name).yaml")
        try yaml.write(to: path, atomically: true, encoding: .utf8)
        let story = try Story.load(path.path)
        let preset = try Preset.load("crossfade", overrides: PresetPatch(overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25"]), underlying: story.settings)
        let out = folder.appendingPathComponent(name).path
        try Exporter.run(try Job(story: story, preset: preset, output: out, frames: FrameSelection(parsing: "0")!))
        return try Image.decode(path: out + "/frame-00000.png")
    }

    static func write(_ image: Image, _ path: String) throws {
        let bytes = image.pixels.flatMap { p in (0..<4).map { UInt8((p >> (8 * UInt32($0))) & 255) } }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("each mode at two opacities", .wholeSuite("numpy, for the reference formulas"), arguments: BlendMode.allCases)
    func againstFormulas(mode: BlendMode) throws {
        let python = try ReferenceTools.pythonWithNumpy()
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        let stickerPath = try Self.sticker(in: folder)
        let backdrop = try frame(story: "slides: [{image: a.jpg, hold: 1}]", in: folder, name: "backdrop")
        let source = try Image.decode(path: stickerPath)
        try Self.write(backdrop, folder.appendingPathComponent("backdrop.rgba").path)
        try Self.write(source, folder.appendingPathComponent("source.rgba").path)
        for opacity in [1.0, 0.5] {
            let shown = try frame(story: """
                slides: [{image: a.jpg, hold: 1}]
                overlays: [{image: sticker.png, width: 1, at: [0.5, 0.5], blend: \(mode.rawValue), opacity: \(opacity)}]
                """, in: folder, name: "shown\(Int(opacity * 100))")
            try Self.write(shown, folder.appendingPathComponent("result.rgba").path)
            // The kernel's opacity is in 256ths, as every opacity of the compositor.
            let k = (opacity * 256).rounded() / 256
            let run = try succeed(python, [repositoryRoot.appendingPathComponent("Tests/Reference/blend.py").path, mode.rawValue, "\(k)",
                                           "\(Self.width)", "\(Self.height)"] + ["backdrop", "source", "result"].map { folder.appendingPathComponent("\($0).rgba").path })
            let parts = run.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(parts.count == 2 && parts[0] <= 1, "\(mode.rawValue) at \(opacity): largest difference \(run.stdout)")
        }
    }

    @Test("blend: is read from any overlay, refused when unknown, and a normal blend draws what no blend draws")
    func reading() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        _ = try Self.sticker(in: folder)
        let plain = try frame(story: "slides: [{image: a.jpg, hold: 1}]\noverlays: [{image: sticker.png, width: 1}]", in: folder, name: "plain")
        let normal = try frame(story: "slides: [{image: a.jpg, hold: 1}]\noverlays: [{image: sticker.png, width: 1, blend: normal}]", in: folder, name: "normal")
        let screen = try frame(story: "slides: [{image: a.jpg, hold: 1}]\noverlays: [{image: sticker.png, width: 1, blend: screen}]", in: folder, name: "screen")
        #expect(plain.pixels == normal.pixels && plain.pixels != screen.pixels)
        // Screen never darkens: every channel at least the photo's.
        let backdrop = try frame(story: "slides: [{image: a.jpg, hold: 1}]", in: folder, name: "photo")
        #expect(zip(screen.pixels, backdrop.pixels).allSatisfy { s, b in (0..<3).allSatisfy { c in (s >> (8 * UInt32(c))) & 255 >= (b >> (8 * UInt32(c))) & 255 } })
        #expect(throws: PresetError.self) {
            try frame(story: "slides: [{image: a.jpg, hold: 1}]\noverlays: [{image: sticker.png, blend: glow}]", in: folder, name: "bad")
        }
    }
}
