import ArgumentParser
import Foundation
import Segue

/// The options that shape every export, for render, checksum and batch alike.
struct ExportOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp("Overrides a preset key by its dotted path, for example transition.duration=0.4; repeatable.", valueName: "KEY=VALUE"))
    var overrides: [String] = []

    @Option(help: ArgumentHelp("The output size in pixels (canvas.size); the scene is laid out in size ÷ canvas.scale points.", valueName: "WxH"),
            transform: PixelSize.init(parsing:))
    var size: PixelSize?

    @Option(help: ArgumentHelp("Frames per second (fps), 1 to 240: a whole number, or 29.97, 23.976, 59.94 (the exact NTSC rates 30000/1001, ...), or a fraction N/D.", valueName: "RATE"),
            transform: { text in
                guard let rate = FrameRate(parsing: text), (1...240).contains(rate.value) else {
                    throw ValidationError("--fps \(text): expected a frame rate from 1 to 240: 30, 29.97, 23.976, 59.94 or a fraction N/D.")
                }
                return rate
            })
    var fps: FrameRate?

    @Option(help: ArgumentHelp("The platform the video is for (target): instagram-story, instagram-reel, tiktok, youtube-short or youtube. Sets the size, rate, codec, rate cap, loudness and text's safe area under the keys given, and refuses what the platform refuses.", valueName: "PLATFORM"))
    var target: Target?

    @Option(help: ArgumentHelp("The video codec (encode.codec): h264 or hevc.", valueName: "CODEC"))
    var codec: Preset.Codec?

    @Option(help: ArgumentHelp("The MP4's soundtrack (audio.file): an audio file FFmpeg decodes (MP3, M4A, WAV, FLAC, Ogg), trimmed, faded and looped to the video's length, or 'silence' for a silent AAC track. Set its start, volume, fadeIn, fadeOut and loop with --set audio.KEY=VALUE.", valueName: "FILE"))
    var audio: String?

    @Option(help: ArgumentHelp("A picture fixed to the screen over every frame, a watermark (logo.image): PNG, WebP, GIF, ... By default a fifth of the width, in the bottom right corner; move or size it with --set logo.at=[x,y], logo.anchor, logo.width, logo.opacity.", valueName: "FILE"))
    var logo: String?

    @Option(help: "Compositor threads; any number gives the same pixels. Defaults to the CPUs this process was given (affinity mask, cgroup quota, SLURM_CPUS_PER_TASK).")
    var threads: Int?

    @Option(help: ArgumentHelp("Refuses images of more pixels than this (default about 33 million), before decoding them.", valueName: "N"))
    var maxImagePixels: Int?

    @Option(help: ArgumentHelp("Refuses jobs that would compose more frames x pixels than this (default 2e11, about an hour of 1080x1920).", valueName: "N"))
    var maxPixelFrames: Double?

    @Flag(help: "Replaces outputs that already exist.")
    var force = false

    @Flag(help: "Keeps an output already made from the same job (preset, keys, inputs' content, format) instead of rendering it again; replaces one made from another.")
    var resume = false

    @Option(help: ArgumentHelp("Progress on stderr: auto (a live line on a terminal, else none), json (one object per line) or none.", valueName: "MODE"))
    var progress: ProgressMode = .auto

    @Flag(name: .shortAndLong, help: "Prints nothing but errors.")
    var quiet = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if force && resume { throw ValidationError("--force and --resume: choose one (--force renders every output again; --resume keeps those up to date).") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads \(threads): expected 1...256.") }
        if let maxImagePixels, maxImagePixels < 1 { throw ValidationError("--max-image-pixels \(maxImagePixels): expected a positive number.") }
        if let maxPixelFrames, !(maxPixelFrames >= 1) { throw ValidationError("--max-pixel-frames \(maxPixelFrames): expected a positive number.") }
    }


    /// The options as one patch of the preset, in the order they apply (a job's own `set`
    /// comes after): typed values, never YAML text.
    var presetOverrides: PresetPatch {
        var patch = PresetPatch()
        if let target { patch.set("target", .text(target.rawValue), origin: .option("--target \(target.rawValue)")) }
        for text in overrides { patch.append(override: text) }
        if let size { patch.set("canvas.size", .integers([size.width, size.height]), origin: .option("--size \(size.width)x\(size.height)")) }
        if let fps { patch.set("fps", .rate(fps), origin: .option("--fps \(fps)")) }
        if let codec { patch.set("encode.codec", .text(codec.rawValue), origin: .option("--codec \(codec.rawValue)")) }
        if let audio { patch.set("audio.file", .text(audio), origin: .option("--audio \(audio)")) }
        if let logo { patch.set("logo.image", .text(logo), origin: .option("--logo \(logo)")) }
        return patch
    }

    var effectiveProgress: ProgressMode { quiet ? .none : progress }

    /// The limits these options set.
    var limits: Limits {
        var limits = Limits()
        if let maxImagePixels { limits.maxPixels = maxImagePixels; limits.maxSide = max(limits.maxSide, Int(Double(maxImagePixels).squareRoot())) }
        if let maxPixelFrames { limits.maxPixelFrames = Int(min(maxPixelFrames, 9e18)) }
        return limits
    }
}

enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    case auto, json, none
}

/// `--size WxH`: an output size in whole pixels.
struct PixelSize: Equatable {
    var width: Int
    var height: Int

    init(parsing text: String) throws {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw ValidationError("expected WIDTHxHEIGHT in pixels, for example 1080x1920")
        }
        (width, height) = (w, h)
    }
}

extension Preset.Codec: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
extension Target: ExpressibleByArgument {}

/// Reports a job's progress on stderr: a live line on a terminal, or, for pipelines, one JSON
/// object a second (and at the first and the last frame):
/// `{"job":"story.mp4","phase":"render","frame":12,"total":210,"fps":28.5,"eta":6.94,"elapsed":0.421}`.
/// `phase` is `render`, `chunk` (with `"chunk":"2/8"`) or `join`; a batch's lines add
/// `"jobsDone"` and `"jobs"`.
final class ProgressReporter {
    let mode: ProgressMode
    let job: String
    /// The fields every JSON line starts with (job, phase and the phase's own), made once.
    private let head: String
    private var lastDraw = 0.0
    private var lastLine = -Double.infinity
    private let live: Bool

    init(mode: ProgressMode, job: String, phase: String = "render", chunk: Shard? = nil) {
        self.mode = mode
        self.job = job
        head = "\"job\":\(ProgressReporter.quoted(job)),\"phase\":\(ProgressReporter.quoted(phase))"
            + (chunk.map { ",\"chunk\":\"\($0.index + 1)/\($0.count)\"" } ?? "")
        live = mode == .auto && isatty(STDERR_FILENO) == 1
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        String(data: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), encoding: .utf8) ?? "\"\""
    }

    func report(_ p: ExportProgress) { report(p, extra: "") }

    /// `extra`: more JSON fields, each starting with a comma.
    func report(_ p: ExportProgress, extra: String) {
        let fps = p.elapsed > 0 ? Double(p.framesDone) / p.elapsed : 0
        let eta = fps > 0 ? Double(p.frameCount - p.framesDone) / fps : 0
        switch mode {
        case .json:
            guard p.framesDone <= 1 || p.framesDone == p.frameCount || p.elapsed - lastLine >= 1 else { return }
            lastLine = p.elapsed
            let line = "{\(head),\"frame\":\(p.framesDone),\"total\":\(p.frameCount)" + String(format: ",\"fps\":%.2f,\"eta\":%.2f,\"elapsed\":%.3f", fps, eta, p.elapsed)
                + extra + "}\n"
            FileHandle.standardError.write(Data(line.utf8))
        case .auto where live:
            guard p.elapsed - lastDraw >= 0.1 || p.framesDone == p.frameCount else { return }
            lastDraw = p.elapsed
            let line = String(format: "\r\u{1B}[2K%@: %d/%d frames, %.1f fps, ETA %.1f s", job, p.framesDone, p.frameCount, fps, eta)
            FileHandle.standardError.write(Data(line.utf8))
        default:
            break
        }
    }

    /// Ends the live line.
    func finish() {
        if live { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
