import Foundation
import Testing
import Segue   // not @testable: the example may use only the public API

// README example begin
/// Renders images into a story video at 540x960, printing progress; calling
/// `cancel.cancel()` from another thread stops it and removes what it wrote.
func makeStory(from images: [String], to output: String, cancel: Cancellation) throws -> ExportResult {
    var preset = try Preset.load("stories-cube", overrides: ["canvas.size=[540, 960]", "canvas.scale=1.5"])
    preset.transition.duration = 0.4
    preset.hold = 1
    let job = try Job(preset: preset, inputs: images, output: output)
    return try Exporter.run(job, cancellation: cancel) { progress in
        print("\(progress.framesDone) of \(progress.frameCount) frames")
    }
}
// README example end

@Suite("The library, as the README shows it")
struct LibraryExampleTests {
    @Test("the README's example is this file's, and it renders")
    func readmeExample() throws {
        func block(_ text: String) -> String? {
            guard let start = text.range(of: "/// Renders images into a story video"),
                  let end = text.range(of: "\n}\n", range: start.upperBound..<text.endIndex) else { return nil }
            return String(text[start.lowerBound..<end.upperBound])
        }
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        #expect(block(readme) != nil && block(readme) == block(source))

        let out = temporaryFolder().appendingPathComponent("story.mp4").path
        let result = try makeStory(from: [example("a.jpg"), example("b.png")], to: out, cancel: Cancellation())
        #expect(result.frameCount == 72 && FileManager.default.fileExists(atPath: out)) // (2 x 1 + 0.4) s at 30 fps
    }

    @Test("cancelling stops the export and leaves nothing")
    func cancel() throws {
        let folder = temporaryFolder()
        let cancel = Cancellation()
        cancel.cancel()
        #expect(throws: ExportError.cancelled) {
            try makeStory(from: [example("a.jpg"), example("b.png")], to: folder.appendingPathComponent("x.mp4").path, cancel: cancel)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}

@Suite("Sinks fed by a program's own frames")
struct OwnFramesTests {
    @Test("VideoSink takes frames the program drew itself, a repeated one sent again: each shows its colour")
    func mp4FromOwnFrames() throws {
        let folder = temporaryFolder()
        let path = folder.appendingPathComponent("own.mp4").path
        let canvas = Canvas(width: 64, height: 48, scale: 1)
        var preset = try Preset.load("crossfade")
        preset.canvas = canvas
        preset.fps = 10
        let sink = try VideoSink(path: path, format: .mp4, preset: preset)
        let colours: [Color] = [Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 0, blue: 1)]
        var index = 0
        for colour in colours {
            let frame = FrameBuffer(width: 64, height: 48)
            try Compositor(threads: 2).render(Layer(frame: canvas.bounds), canvas: Canvas(width: 64, height: 48, scale: 1, background: colour),
                                              pictures: PictureCache([]), into: frame)
            try sink.write(frame, index: index, repeated: false)
            try sink.write(frame, index: index + 1, repeated: true)
            index += 2
        }
        try sink.finish()
        // Decoded back by FFmpeg: four frames, red, red, blue, blue.
        let raw = folder.appendingPathComponent("own.rgb").path
        try ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = 64 * 48 * 3
        #expect(bytes.count == 4 * size)
        for n in 0..<(bytes.count / size) {
            let center = n * size + (24 * 64 + 32) * 3
            let (r, b) = (Int(bytes[center]), Int(bytes[center + 2]))
            #expect(n < 2 ? r > 200 && b < 50 : b > 200 && r < 50, "frame \(n): red \(r), blue \(b)")
        }
    }
}
