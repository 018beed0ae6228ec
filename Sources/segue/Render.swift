import ArgumentParser
import Foundation
import Segue

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Renders images joined by a preset's transition to an MP4, PNG frames or frame checksums.",
        discussion: """
            The format follows from OUTPUT unless --format says: '-' or a .framemd5 file \
            is framemd5, a .mp4 file is MP4, a name with no extension (or an existing \
            folder) is a folder of frame-NNNNN.png files, named by frame index.
            """
    )

    @Option(name: .long, help: "A shipped preset's name or a preset file's path.")
    var preset = "stories-cube"

    @Option(name: .customLong("set"), help: ArgumentHelp("Overrides a preset key by its dotted path, for example transition.duration=0.4; repeatable.", valueName: "KEY=VALUE"))
    var overrides: [String] = []

    @Option(help: ArgumentHelp("The output size in pixels (canvas.size); the scene is laid out in size ÷ canvas.scale points.", valueName: "WxH"))
    var size: String?

    @Option(help: "Frames per second (fps).")
    var fps: Int?

    @Option(help: "Compositor threads; any number gives the same pixels. Defaults to the number of cores.")
    var threads: Int?

    @Option(help: ArgumentHelp("The output format: mp4, png or framemd5.", valueName: "FORMAT"))
    var format: String?

    @Option(help: ArgumentHelp("Only these frame indices, for png and framemd5 output, for example 0,10,20-25.", valueName: "LIST"))
    var frames: String?

    @Option(name: .short, help: ArgumentHelp("The output: a file, a folder for PNG frames, or - for framemd5 on stdout.", valueName: "OUTPUT"))
    var output: String

    @Argument(help: ArgumentHelp("The images, in order (JPEG, PNG, WebP).", valueName: "INPUT"))
    var inputs: [String] = []

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("Give at least one input image.") }
        if let size, Render.parseSize(size) == nil {
            throw ValidationError("--size '\(size)': expected WIDTHxHEIGHT in pixels, for example 1080x1920.")
        }
        if let fps, !(1...240).contains(fps) { throw ValidationError("--fps \(fps): expected 1...240.") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads \(threads): expected 1...256.") }
        if let format, OutputFormat(rawValue: format) == nil {
            throw ValidationError("--format '\(format)': expected one of: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let frames, FrameSelection(parsing: frames) == nil {
            throw ValidationError("--frames '\(frames)': expected frame indices and ranges, for example 0,10,20-25.")
        }
    }

    static func parseSize(_ text: String) -> (Int, Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        return (w, h)
    }

    func run() throws {
        var sets = overrides
        if let size, let (w, h) = Render.parseSize(size) { sets.append("canvas.size=[\(w), \(h)]") }
        if let fps { sets.append("fps=\(fps)") }
        let preset = try Preset.load(preset, overrides: sets)
        var job = try Job(preset: preset, inputs: inputs, output: output, format: format.flatMap(OutputFormat.init(rawValue:)),
                          frames: frames.flatMap(FrameSelection.init(parsing:)))
        if let threads { job.threads = threads }
        let result = try Exporter.run(job)
        if output != "-" {
            let line = String(format: "segue: wrote %@ (%d frames, %.2f s)\n", output, result.frameCount, result.seconds)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}
