import ArgumentParser
import Foundation
import Segue

/// What a render draws: the preset, the images, and which frames.
struct RenderInputs: ParsableArguments {
    @Option(name: .long, help: "A preset's name (built in, or in a --presets or SEGUE_PRESETS folder) or a preset file's path; default: the story's, or stories-cube.",
            completion: .presets)
    var preset: String?

    @Option(help: ArgumentHelp("A story file (YAML): a preset, overrides and slides, each with its own hold, motion and transition.", valueName: "FILE"))
    var story: String?

    @Option(help: ArgumentHelp("Only these frame indices, for png, framemd5, yuv and sheet output, for example 0,10,20-25.", valueName: "LIST"),
            transform: { text in
                guard let selection = FrameSelection(parsing: text) else {
                    throw ValidationError("expected frame indices and ranges, for example 0,10,20-25")
                }
                return selection
            })
    var frames: FrameSelection?

    @Option(name: .customLong("var"), help: ArgumentHelp("A value for one of the {{variables}} of the story or its preset, over its default in vars:; repeatable: --var name=Ana --var photo=ana.jpg (a path relative to the file that uses it).", valueName: "NAME=VALUE"))
    var vars: [String] = []

    @Option(name: .customLong("text"), help: ArgumentHelp("Text over the whole video, fixed to the screen (the first near the top, each next one lower), in the preset's text style (change it with --set text.KEY=VALUE: font, size, weight, color, outline, box, shadow, ...); repeatable.", valueName: "TEXT"))
    var texts: [String] = []

    @Argument(help: ArgumentHelp("The images and video clips, in order (JPEG, PNG, WebP, HEIC; MP4, MOV, WebM, ...), told apart by content.", valueName: "INPUT"))
    var inputs: [String] = []

    /// The --var values by name.
    var variables: [String: String] { get throws { try RenderInputs.values(of: vars) } }

    /// `--var NAME=VALUE` options as values by name.
    static func values(of options: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for text in options {
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { throw ValidationError("--var \(text): expected NAME=VALUE.") }
            let name = String(text[..<eq])
            guard values[name] == nil else { throw ValidationError("--var \(name) is given twice.") }
            values[name] = String(text[text.index(after: eq)...])
        }
        return values
    }

    func validate() throws {
        if !vars.isEmpty, story == nil, preset == nil { throw ValidationError("--var gives the variables of a story or a preset: it needs --story FILE or --preset NAME.") }
        _ = try variables
        if story != nil {
            guard inputs.isEmpty else { throw ValidationError("Give the images in the story file or on the command line, not both.") }
        } else {
            guard !inputs.isEmpty else { throw ValidationError("Give at least one input image (or --story FILE).") }
        }
    }

    /// The job the command line asks for (warnings printed unless --quiet).
    func job(options: ExportOptions, output: String, format: OutputFormat?) throws -> Job {
        let library = try options.library.library()
        var request: JobRequest
        let loaded = try story.map { try Story.load($0, vars: try variables, library: library, preset: preset) }
        if let story = loaded {
            // The story's preset and keys first; the command line's options win over them.
            request = try JobRequest(story: story, preset: preset, overrides: options.presetOverrides, library: library, output: output,
                                     format: format, frames: frames, limits: options.limits, overwrite: options.force)
        } else {
            let name = self.preset ?? PresetLibrary.defaultPreset, values = try variables
            let used = try library.variables(of: name).used
            if let unknown = values.keys.sorted().first(where: { used[$0] == nil }) {
                throw PresetError.unknownKey(key: unknown, origin: .option("--var \(unknown)=\(values[unknown]!), preset \(name)"), known: used.keys.sorted())
            }
            let preset = try Preset.load(name, overrides: options.presetOverrides, vars: values, library: library)
            request = JobRequest(.files(inputs), preset: preset, output: output, format: format, frames: frames, limits: options.limits,
                                 overwrite: options.force)
        }
        if let (text, problem) = texts.lazy.compactMap({ text in Overlay.lengthProblem(text).map { (text, $0) } }).first {
            throw ExportError.job("--text '\(shortened(text))': expected \(problem)")
        }
        request.overlays = texts.enumerated().map { index, text in
            var overlay = Overlay(text: text, style: request.preset.text)
            overlay.at = Point(x: 0.5, y: min(0.8, 0.22 + 0.1 * Double(index)))
            return overlay
        }
        request.delivery.resume = options.resume
        if let threads = options.threads { request.delivery.threads = threads }
        let job = try Job(request)
        if !options.quiet { for warning in job.warnings { FileHandle.standardError.write(Data("segue: warning: \(warning)\n".utf8)) } }
        return job
    }

    /// One export as the command line runs it: interruptible, reporting progress on stderr.
    /// `chunk`: a chunk of the video (`--chunk`), `chunkCount` the count `--chunk auto` is given.
    func export(options: ExportOptions, output: String, format: OutputFormat?, chunk option: ShardOption? = nil, chunkCount: Int? = nil) throws {
        var job = try job(options: options, output: output, format: format)
        var chunk: Shard?
        switch option {
        case nil: break
        case let .fixed(part): chunk = part
        case .sound: return try exportSound(job, options: options)
        case .auto:
            switch try Chunks.part(of: try Shard.automatic(count: chunkCount, option: "--chunk"), sound: Chunks.hasSound(job)) {
            case let .video(part): chunk = part
            case .sound: return try exportSound(job, options: options)
            }
        }
        if let chunk {
            job = job.delivering {
                $0.chunk = chunk
                // An MP4's chunk goes into the output's chunk folder; framemd5 and yuv go to OUTPUT.
                if job.format == .mp4 { $0.output = Chunks.file(chunk, of: output) }
            }
        }
        let output = job.output
        Interruption.shared.install()
        let reporter = ProgressReporter(mode: options.effectiveProgress, job: output, phase: chunk == nil ? "render" : "chunk", chunk: chunk)
        let result = try Exporter.run(job, cancellation: Interruption.shared.cancellation, progress: reporter.report)
        reporter.finish()
        if result.skipped, !options.quiet {
            FileHandle.standardError.write(Data("segue: kept \(output): it was made from the same job (\(result.fingerprint ?? ""))\n".utf8))
        } else if output != "-" || job.format == .null, !options.quiet, options.effectiveProgress != .json {
            let threads = job.threads == 1 ? "1 thread" : "\(job.threads) threads"
            let composed = result.framesComposed == 0 || result.composeSeconds <= 0 ? "none composed (\(threads))"
                : String(format: "%d composed in %.3f s, %.1f fps, %@", result.framesComposed, result.composeSeconds,
                         Double(result.framesComposed) / result.composeSeconds, threads)
            let copied = result.framesCopied > 0 ? String(format: "; %d copied from clips", result.framesCopied) : ""
            let line = String(format: "segue: wrote %@ (%d %@, %.2f s; %@%@; inputs prepared in %.3f s)\n",
                              job.format == .null ? "nothing" : output, result.frameCount, result.frameCount == 1 ? "frame" : "frames", result.seconds,
                              composed, copied, result.prepareSeconds)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}

extension RenderInputs {
    /// The sound chunk of `job` (`--chunk sound`, or the last task of `--chunk auto`).
    func exportSound(_ job: Job, options: ExportOptions) throws {
        // A signal stops the mix at its next block (Interrupt), and the parts are removed.
        Interruption.shared.install()
        let reporter = ProgressReporter(mode: options.effectiveProgress, job: Chunks.soundFile(of: job.output), phase: "chunk")
        let total = job.timeline.frameCount
        reporter.report(ExportProgress(framesDone: 0, frameCount: total, elapsed: 0), extra: ",\"chunk\":\"sound\"")
        let result = try Chunks.renderSound(job)
        reporter.report(ExportProgress(framesDone: total, frameCount: total, elapsed: result.seconds), extra: ",\"chunk\":\"sound\"")
        guard !options.quiet, options.effectiveProgress != .json else { return }
        let line = !result.written ? "segue: \(job.output) has no sound: there is no sound chunk to render\n"
            : result.skipped ? "segue: kept \(result.path): it was made from the same job\n"
            : String(format: "segue: wrote %@ (the sound of %d frames, %.2f s)\n", result.path, total, result.seconds)
        FileHandle.standardError.write(Data(line.utf8))
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Renders images joined by a preset's transition to an MP4, WebM, MOV, GIF or WebP, PNG frames, frame checksums, raw yuv420p frames or a contact sheet.",
        discussion: """
            The format follows from OUTPUT unless --format says: '-' or a .framemd5 file \
            is framemd5, a .mp4 file is MP4 (H.264 or HEVC, AAC), a .webm file VP9 and Opus, a .mov file ProRes and AAC, \
            a .gif file an animated GIF (15 fps unless --fps says), a .webp file an animated WebP, a .yuv file is raw yuv420p frames (what the MP4's \
            encoder is given, for another encoder), a .png file is a contact sheet, a name with no \
            extension (or an existing folder) is a folder of frame-NNNNN.png files, named by \
            frame index. Outputs are written under a temporary name and renamed into place \
            when complete; an existing output is replaced only with --force.

            Transitions (transition.kind): \(TransitionRegistry.names.joined(separator: ", ")). \
            'segue presets' lists the presets that use them; docs/presets.md lists every key.
            """
    )

    @OptionGroup var what: RenderInputs

    @OptionGroup var options: ExportOptions

    @Option(help: ArgumentHelp("The output format: mp4, webm, mov, gif, webp, png, framemd5, yuv (raw yuv420p frames), sheet, or null (drawn as an export draws, band by band, and dropped: to time rendering).", valueName: "FORMAT"))
    var format: OutputFormat?

    @Option(name: .short, help: ArgumentHelp("The output: a file, a folder for PNG frames, or - for framemd5 (or yuv) on stdout.", valueName: "OUTPUT"))
    var output: String

    @Option(help: ArgumentHelp("Renders only chunk K of N (1-based) of an MP4, into OUTPUT.chunks/ for 'segue join' (or its frames, as framemd5 or yuv, to OUTPUT); sound: the soundtrack alone, as OUTPUT.chunks/sound.m4a; auto: the part of this array task (Slurm, Kubernetes Indexed Jobs, AWS Batch): with sound, the last task renders the sound and the others the video's chunks.", valueName: "K/N|sound|auto"),
            completion: .list(["auto", "sound"]), transform: ShardOption.chunk(parsing:))
    var chunk: ShardOption?

    @Option(help: ArgumentHelp("How many chunks there are, for --chunk auto where the engine does not say (Kubernetes: the job's completions).", valueName: "N"))
    var chunkCount: Int?

    @Flag(help: "Says what would be rendered, writing nothing: the length, and each cut's time (with timing: beats, the beat it is on and how far it moved).")
    var dryRun = false

    func validate() throws {
        if output.isEmpty { throw ValidationError("-o: an empty path (expected the output's file name, or - for standard output).") }
        if let chunkCount, chunkCount < 1 { throw ValidationError("--chunk-count \(chunkCount): expected 1 or more.") }
        if chunkCount != nil, chunk != .auto { throw ValidationError("--chunk-count goes with --chunk auto.") }
    }

    func run() throws {
        if chunk == .sound, what.frames != nil { throw ValidationError("--chunk sound: the sound chunk is the whole video's; not with --frames.") }
        if dryRun {
            let job = try what.job(options: options, output: output, format: format)
            try job.validate()
            print(DryRun.lines(job, name: what.story ?? "the inputs").joined(separator: "\n"))
            return
        }
        try what.export(options: options, output: output, format: format, chunk: chunk, chunkCount: chunkCount)
    }
}

struct Checksum: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints the framemd5 checksums of a render on stdout, to pin a video in a test.",
        discussion: "The same as 'segue render --format framemd5 -o - ...'."
    )

    @OptionGroup var what: RenderInputs

    @OptionGroup var options: ExportOptions

    func run() throws {
        try what.export(options: options, output: "-", format: .framemd5)
    }
}
