import CSegueAV
import Foundation

/// One export, resolved from its request (`JobRequest`) once: the preset as the output has it,
/// the story's plan, its clips probed, the overlays read and the timeline worked out. A job
/// does not change; an edited request makes another (`edited`, `delivering`).
public struct Job: Sendable {
    /// What the job was resolved from.
    public let request: JobRequest
    public let format: OutputFormat
    private let resolved: Resolved

    /// What a request resolves to; only its pictures, preset, output kind, limits, overlays and
    /// voices change it, its delivery does not.
    private struct Resolved: Sendable {
        let preset: Shared<Preset>
        let inputs: [String]
        let plan: StoryPlan?
        let clips: [Int: ClipSlide]
        let fills: [(fit: Fit, background: Color)]
        let overlays: [[Overlay]]
        let screenOverlays: [Overlay]
        let voices: [Voice]
        let timeline: Timeline
        let beats: BeatReport?
    }

    /// The preset as the output has it (an output's own frame rate unless one is given).
    public var preset: Preset { _read { yield resolved.preset.value } }
    /// Whether this job and `other` share one preset's storage (as a batch's jobs made from
    /// the same preset and values do).
    func sharesPreset(with other: Job) -> Bool { resolved.preset === other.resolved.preset }
    /// The pictures and clips, in order.
    public var inputs: [String] { resolved.inputs }
    /// Each slide's hold, motion and cut, when the job is a story (slides that set their own,
    /// or a preset with motion); nil when the preset's transition runs the whole video.
    public var plan: StoryPlan? { resolved.plan }
    /// Clip slides by slide index: the clip, what its header says and the part played.
    public var clips: [Int: ClipSlide] { resolved.clips }
    /// How each slide's picture fills its page, and the colour around it.
    public var fills: [(fit: Fit, background: Color)] { resolved.fills }
    /// Text over each slide's page, by slide (empty lists for slides with none).
    public var overlays: [[Overlay]] { resolved.overlays }
    /// Text over the whole video, fixed to the screen above the transitions: a story's own
    /// and its captions, the preset's logo, then the request's.
    public var screenOverlays: [Overlay] { resolved.screenOverlays }
    /// The screen's overlays that can be seen: those that start before the video ends (a
    /// transcript longer than the video is not laid out, nor counted in the fingerprint).
    var shownScreenOverlays: [Overlay] {
        let length = timeline.seconds
        return screenOverlays.filter { $0.span.start <= length }
    }
    /// Voice tracks on the video's timeline, mixed with the music (which ducks under them).
    public var voices: [Voice] { resolved.voices }
    /// The video's timeline.
    public var timeline: Timeline { resolved.timeline }
    /// What `timing: beats` made of the timeline; nil when the timing is off.
    public var beats: BeatReport? { resolved.beats }

    public var output: String { request.delivery.output }
    public var frames: FrameSelection? { request.delivery.frames }
    public var chunk: Shard? { request.delivery.chunk }
    public var segment: Range<Int>? { request.delivery.segment }
    public var pngLevel: Int? { request.delivery.pngLevel }
    public var threads: Int { max(1, request.delivery.threads) }
    public var limits: Limits { request.limits }
    public var overwrite: Bool { request.delivery.overwrite }
    public var resume: Bool { request.delivery.resume }

    /// Resolves `request`: every job, from the command line, a batch, the preview or a
    /// cluster's chunk, is made here.
    public init(_ request: JobRequest) throws {
        guard let format = request.format ?? OutputFormat.inferred(from: request.delivery.output) else {
            throw ExportError.unknownFormat(output: request.delivery.output)
        }
        self.request = request
        self.format = format
        resolved = try Job.resolve(request, format: format)
    }

    private init(request: JobRequest, format: OutputFormat, resolved: Resolved) {
        self.request = request
        self.format = format
        self.resolved = resolved
    }

    /// The job of this one's request changed by `change`, resolved again.
    public func edited(_ change: (inout JobRequest) throws -> Void) throws -> Job {
        var request = self.request
        try change(&request)
        return try Job(request)
    }

    /// This job written otherwise (another output, its chunk, other threads): what it shows
    /// is what it was resolved to.
    public func delivering(_ change: (inout JobRequest.Delivery) -> Void) -> Job {
        var request = self.request
        change(&request.delivery)
        return Job(request: request, format: format, resolved: resolved)
    }

    /// This job written as `format`, and otherwise as `change` says: what it shows is what it
    /// was resolved to, unless `format` has a frame rate of its own that the job's has not
    /// (a GIF's), when the request is resolved again.
    public func delivering(as format: OutputFormat, _ change: (inout JobRequest.Delivery) -> Void) throws -> Job {
        guard format.defaultRate == self.format.defaultRate else {
            return try edited {
                $0.format = format
                change(&$0.delivery)
            }
        }
        var request = self.request
        request.format = format
        change(&request.delivery)
        return Job(request: request, format: format, resolved: resolved)
    }

    public init(preset: Preset, inputs: [String], output: String, format: OutputFormat? = nil,
                frames: FrameSelection? = nil, threads: Int = CPUBudget.forThisProcess,
                limits: Limits = Limits(), overwrite: Bool = false) throws {
        try self.init(JobRequest(.files(inputs), preset: preset, output: output, format: format, frames: frames, threads: threads,
                                 limits: limits, overwrite: overwrite))
    }

    /// A story: slides with their own holds, motions and cuts, the preset supplying the rest.
    public init(preset: Preset, slides: [StorySlide], output: String, format: OutputFormat? = nil,
                frames: FrameSelection? = nil, threads: Int = CPUBudget.forThisProcess,
                limits: Limits = Limits(), overwrite: Bool = false) throws {
        try self.init(JobRequest(.slides(slides), preset: preset, output: output, format: format, frames: frames, threads: threads,
                                 limits: limits, overwrite: overwrite))
    }

    private static func resolve(_ request: JobRequest, format: OutputFormat) throws -> Resolved {
        // An output with a rate of its own (a GIF's) has it unless a story, the job or the
        // command line gives one.
        var shared = request.presetStorage
        if let rate = format.defaultRate, !shared.value.rateGiven {
            var preset = shared.value
            preset.fps = rate
            shared = Shared(preset)
        }
        // Cuts on the beat: the music's grid, and the beat's length for durations in beats.
        var beats = try shared.value.timing.isOn ? BeatReport.analysing(shared.value) : nil
        if let beats, shared.value.transition.durationBeats != nil {
            var preset = shared.value
            preset.transition = preset.transition.timed(beat: beats.beat)
            shared = Shared(preset)
        }
        let preset = shared.value, limits = request.limits
        let slides = request.slides
        let clips = try Job.clips(in: slides, limits: limits)
        if let first = clips.keys.min(), !type(of: preset.transition.transition).joinsTwoPages {
            throw ExportError.clipInWholeStoryTransition(path: clips[first]!.path, transition: preset.transition.kind,
                                                         joining: TransitionRegistry.joiningTwoPages)
        }
        var plan: StoryPlan?
        var stingers: [FoundStinger] = []
        // A stinger's clip is an overlay of the plan's cuts: files with one have a plan too.
        if case .files = request.pictures, preset.motion.isStill, clips.isEmpty, !(preset.transition.transition is Stinger) {} else {
            var made = try StoryPlan(slides: slides, preset: preset, clips: clips, beat: beats?.beat)
            stingers = try Job.stingers(in: &made, slides: slides, limits: limits)
            plan = made
        }
        var problems: [PresetError] = []
        let overlays = slides.map { slide in
            guard let node = slide.overlays else { return [Overlay]() }
            do { return try Overlay.list(node, key: slide.key + ".overlays", base: preset.text, styles: preset.styles, limits: limits) } catch let error as PresetError {
                problems += error.all
                return []
            } catch {
                problems.append(.invalid(key: slide.key + ".overlays", origin: node.origin, value: "a list", expected: "\(error)"))
                return []
            }
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        var screen: [Overlay] = [], voices: [Voice] = []
        if case let .story(story) = request.pictures {
            if let node = story.overlays { screen = try Overlay.list(node, key: "overlays", base: preset.text, styles: preset.styles, limits: limits) }
            if let node = story.captions { screen += try Captions.overlays(node, key: "captions", preset: preset) }
            if let node = story.voice { voices = try Voice.list(node, key: "voice") }
        }
        if let logo = preset.logo { screen.append(logo) }
        var timeline = Job.timeline(preset: preset, inputs: slides.count, plan: plan)
        timeline = beats?.fit(timeline, plan: &plan, slides: slides, clips: clips, start: preset.audio.start, loop: preset.audio.loop) ?? timeline
        let stung = Job.placed(stingers, on: timeline)
        return Resolved(preset: shared, inputs: slides.map(\.image), plan: plan, clips: clips,
                        fills: slides.map { ($0.fit ?? preset.fit, $0.background ?? preset.canvas.background) },
                        overlays: overlays, screenOverlays: screen + request.overlays + stung.overlays,
                        voices: voices + request.voices + stung.voices, timeline: timeline, beats: beats)
    }

    /// The slides that are clips, by their content, with their settings checked against what
    /// their headers say. A file that does not exist is left to `validate`.
    static func clips(in slides: [StorySlide], limits: Limits) throws -> [Int: ClipSlide] {
        var clips: [Int: ClipSlide] = [:]
        for (index, slide) in slides.enumerated() where Paths.found(slide.image) != .nothing {
            guard ClipInfo.isClip(slide.image) else {
                if slide.declaredClip {
                    // Why it is no clip, where the clip's header can say (no video stream at all).
                    var why = "this file is a still picture: name it with image:"
                    do { _ = try ClipInfo.probe(slide.image, limits: limits) } catch let error as ExportError {
                        switch error {
                        case let .unsupportedClip(_, reason), let .damagedClip(_, reason), let .clipTooLarge(_, reason): why = reason
                        default: why = "\(error)"
                        }
                    }
                    throw PresetError.invalid(key: slide.key + ".clip", origin: slide.origin, value: "'\(slide.image)'",
                                              expected: "a video clip (MP4, MOV, WebM, ...); \(why)")
                }
                if let key = slide.clipKeys.first {
                    throw PresetError.invalid(key: "\(slide.key).\(key)", origin: slide.origin, value: "'\(slide.image)'",
                                              expected: "\(key) applies to video clips; '\(slide.image)' is a still picture")
                }
                continue
            }
            let info = try ClipInfo.probe(slide.image, limits: limits)
            let settings = slide.clip ?? ClipSettings()
            if let duration = info.duration, settings.part.start >= duration {
                throw PresetError.invalid(key: slide.key + ".start", origin: slide.origin, value: String(format: "%g", settings.part.start),
                                          expected: String(format: "a time before the clip's end ('%@' lasts %.2f s)", slide.image, duration))
            }
            if settings.audio, !info.hasAudio {
                throw PresetError.invalid(key: slide.key + ".audio", origin: slide.origin, value: "true",
                                          expected: "a clip with sound; '\(slide.image)' has no audio stream")
            }
            clips[index] = ClipSlide(path: slide.image, info: info, settings: settings)
        }
        return clips
    }

    /// The frames written, of `count`: those chosen, or all (a sheet samples the timeline).
    public func frameIndices(count: Int) -> [Int] {
        if let chunk { return Array(chunk.frames(in: count)) }
        if let segment { return Array(segment.clamped(to: 0..<count)) }
        if let frames { return frames.indices(below: count) }
        guard let samples = format.samples else { return Array(0..<count) }
        return timeline.sample(samples).filter { $0 < count }
    }

    private static func timeline(preset: Preset, inputs: Int, plan: StoryPlan?) -> Timeline {
        guard let plan else { return preset.timeline(screens: preset.screenCount(inputs: inputs)) }
        let cuts = plan.cuts
        return Timeline(holds: plan.holds, fps: preset.fps, durations: cuts.map(\.duration)) { step, linear in
            guard let settings = cuts[step].settings else { return 1 }   // a hard cut has no frames between
            return settings.transition.progress(step: 0, linear: linear, curve: settings.curve)
        }
    }

    /// Checks what can be checked before any work, throwing the first problem.
    public func validate() throws {
        if let first = problems().first { throw first }
    }

    /// Everything wrong with the job that can be seen before any work: inputs named and
    /// readable files, an output that may be written, frames in range, options that go together.
    public func problems() -> [ExportError] {
        var problems: [ExportError] = []
        let files = FileManager.default
        if inputs.isEmpty { problems.append(.noInputs) }
        for input in inputs {
            // One look at each input.
            switch Paths.found(input) {
            case .nothing: problems.append(.missingInput(input))
            case .folder: problems.append(.unsupportedImage(path: input, reason: "it is a folder"))
            case let .other(what): problems.append(.notAFile(path: input, what: what, role: "reads its pictures and clips from files"))
            case .file: if !files.isReadableFile(atPath: input) { problems.append(.unreadableImage(path: input, reason: "permission denied")) }
            }
        }
        if output == "-" {
            if !format.toStandardOutput { problems.append(.standardOutput(format: format)) }
        } else if format != .null {
            let found = Paths.found(output)
            // An output not there yet is none of the inputs, which are there.
            if found != .nothing {
                let target = Paths.canonical(output)
                if let input = inputs.first(where: { Paths.canonical($0) == target }) { problems.append(.outputIsInput(input)) }
            }
            let isFolder = found == .folder
            if case let .other(what) = found {
                // A device, a FIFO or a socket is never renamed over, even with --force.
                problems.append(.notAFile(path: output, what: what, role: "writes its output to a file (or to standard output: -o -), and replaces only files"))
            } else if isFolder, !format.isFolder {
                problems.append(.outputIsFolder(path: output, format: format))
            } else if found != .nothing, !overwrite, !resume {
                let empty = isFolder && ((try? files.contentsOfDirectory(atPath: output))?.isEmpty ?? false)
                if !empty { problems.append(.outputExists(output)) }
            }
        }
        let frameCount = timeline.frameCount
        let count = frames.map { $0.indices(below: frameCount).count } ?? frameCount
        let work = count.multipliedReportingOverflow(by: preset.canvas.width * preset.canvas.height)
        if work.overflow || work.partialValue > limits.maxPixelFrames {
            problems.append(.workBudget(frames: count, width: preset.canvas.width, height: preset.canvas.height, limit: limits.maxPixelFrames))
        }
        if let frames {
            if !format.takesFrameSelection {
                problems.append(.framesInMP4)
            } else if frames.maximum >= frameCount {
                problems.append(.framePastEnd(selection: frames, frameCount: frameCount))
            }
        }
        if chunk != nil, !format.takesChunks || frames != nil {
            problems.append(.chunk("--chunk renders a chunk of an MP4 (or its frames as framemd5 or yuv), of the whole video: not \(frames != nil ? "with --frames" : "a \(format.rawValue)")"))
        }
        if segment != nil, format != .mp4 || frames != nil || chunk != nil {
            problems.append(.chunk("a segment is a part of an MP4, not of a \(format.rawValue), nor with --frames or --chunk"))
        }
        if format.evenSize != nil, preset.canvas.width % 2 != 0 || preset.canvas.height % 2 != 0 {
            problems.append(.oddSize(width: preset.canvas.width, height: preset.canvas.height, format: format))
        }
        if preset.canvas.isTransparent, !format.keepsAlpha { problems.append(.noAlpha(format: format)) }
        let encoding = format.encoding(preset)
        let encoders = (encoding.map { [$0.codec] + (format.hasSound && soundtrack.hasTrack ? [$0.audioCodec] : []) } ?? []) + format.otherEncoders
        for name in encoders where segue_has_encoder(name) == 0 { problems.append(.missingEncoder(name: name, format: format)) }
        // A clip's decoding work: its pictures over its time on screen, within the same budget.
        for (index, clip) in clips.sorted(by: { $0.key < $1.key }) {
            let onScreen = timeline.timeOnScreen(index)
            let pictures = (onScreen.upperBound - onScreen.lowerBound) * (clip.info.frameRate ?? preset.fps.value)
            let work = pictures * Double(clip.info.storedWidth * clip.info.storedHeight)
            if work > Double(limits.maxPixelFrames) {
                problems.append(.clipTooLarge(path: clip.path, reason: String(format: "decoding %.0f pictures of %dx%d over its %.1f s on screen is over the budget of %d pixel-frames (raise it with --max-pixel-frames)", pictures, clip.info.storedWidth, clip.info.storedHeight, onScreen.upperBound - onScreen.lowerBound, limits.maxPixelFrames)))
            }
        }
        problems += openedTransitions().problems
        if format.hasSound, let file = preset.audio.file, let problem = Job.audioProblem(file, start: preset.audio.start) {
            problems.append(problem)
        }
        let end = preset.fps.time(ofFrame: frameCount)
        if let target = preset.target {
            problems += target.check(seconds: end, width: preset.canvas.width, height: preset.canvas.height, format: format).errors.map { .target($0) }
        }
        for voice in voices where format.hasSound && voice.at >= end {
            problems.append(.audio(path: voice.file, reason: String(format: "%@ (%@) starts at %g s, after the video ends (it lasts %.2f s)",
                                                                    voice.key, voice.origin.description, voice.at, end)))
        }
        return problems
    }

    /// The preset's transition and the plan's cuts with the files they draw from opened for
    /// the canvas (`FileTransition`), and what is wrong with those files: a luma wipe's matte
    /// that is no picture or clip, a GLSL file that does not compile or a missing Mesa is a
    /// problem before the render, not mid-video.
    func openedTransitions() -> (preset: Preset, plan: StoryPlan?, problems: [ExportError]) {
        let width = preset.canvas.width, height = preset.canvas.height, limits = limits
        var problems: [ExportError] = []
        func opened(_ settings: Preset.TransitionSettings) -> Preset.TransitionSettings {
            var settings = settings
            do {
                settings.transition = try MediaFiles.opening(settings.transition, width: width, height: height, limits: limits)
            } catch let error as ExportError {
                if !problems.contains(error) { problems.append(error) }
            } catch {
                problems.append(.job("\(error)"))
            }
            return settings
        }
        var preset = self.preset, plan = self.plan
        if let cuts = plan?.cuts {
            plan?.cuts = cuts.map { cut in cut.settings.map { .transition(opened($0)) } ?? cut }
        } else {
            preset.transition = opened(preset.transition)
        }
        return (preset, plan, problems)
    }

    /// What the job's target platform would cut or show otherwise (a video past the length it
    /// shows whole, another shape): said, not refused.
    public var warnings: [String] {
        let timing = beats?.fallback.map { [$0] } ?? []
        guard let target = preset.target else { return timing }
        return timing + target.check(seconds: preset.fps.time(ofFrame: timeline.frameCount), width: preset.canvas.width,
                            height: preset.canvas.height, format: format).warnings + coveredOverlays(by: target)
    }

    /// An overlay given `at` stays where it is put; where its anchor lies in the margins the
    /// platform's interface covers, that is said.
    func coveredOverlays(by target: Target) -> [String] {
        let safe = preset.canvas.safeArea
        guard !safe.isZero else { return [] }
        let inside = (safe.left...(1 - safe.right), safe.top...(1 - safe.bottom))
        return (overlays.joined() + screenOverlays).filter { $0.placed && !(inside.0.contains($0.at.x) && inside.1.contains($0.at.y)) }.map { overlay in
            let what = OverlayKind.of(overlay).label(overlay)
            func number(_ value: Double) -> String { String(format: "%g", value) }
            return "target \(target.rawValue): \(what) is placed at [\(number(overlay.at.x)), \(number(overlay.at.y))], where the platform's interface covers the screen "
                + "(canvas.safeArea [\([safe.top, safe.right, safe.bottom, safe.left].map(number).joined(separator: ", "))]); it is kept where it was placed"
        }
    }

    /// What is wrong with `file` as a soundtrack from `start` seconds, if anything: it must
    /// exist, hold audio FFmpeg decodes there, and last past `start`.
    static func audioProblem(_ file: String, start: Double) -> ExportError? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            return .audio(path: file, reason: "no such file (expected an audio file such as MP3, M4A, WAV, FLAC or Ogg)")
        }
        if isFolder.boolValue { return .audio(path: file, reason: "it is a folder (expected an audio file)") }
        // A file many jobs play (a batch's music) is probed once while it stays as it was.
        let attributes = try? FileManager.default.attributesOfItem(atPath: file)
        let key = "\(Paths.canonical(file))|\(start)|\((attributes?[.size] as? NSNumber)?.int64Value ?? -1)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let known = probedAudio.withLock({ $0[key] }) { return known }
        let problem = probeAudio(file, start: start)
        probedAudio.withLock { $0[key] = .some(problem) }
        return problem
    }

    /// What `audioProblem` found of each file probed, by path, start, size and modification time.
    private static let probedAudio = Locked([String: ExportError?]())

    private static func probeAudio(_ file: String, start: Double) -> ExportError? {
        var error = SegueAVError()
        var duration = -1.0
        let status = segue_audio_probe(file, start, &duration, &error)
        if duration >= 0, start >= duration {
            return .audio(path: file, reason: String(format: "audio.start %g s is past its end (it lasts %.2f s)", start, duration))
        }
        guard status == 0 else { return .audio(path: file, reason: "\(error.text) (expected a file with an audio stream FFmpeg decodes)") }
        return nil
    }
}
