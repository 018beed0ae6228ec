import Foundation

/// One slide of a story: its picture or clip, and what it sets for itself (the rest comes
/// from the preset). Its `transition` and `motion` are kept as written and read against the
/// preset when the job is made, so their errors name the story's file and line.
public struct StorySlide: Sendable {
    /// The picture's or clip's path. Whether it is a clip is told by its content.
    public var image: String
    /// Seconds on screen between its transitions; nil for the preset's hold (a clip's:
    /// its trimmed length less its transitions, so that it is on screen as long as it plays).
    public var hold: Double?
    /// The cut to the next slide, as written: `cut`, a transition's name, or a mapping of
    /// `kind`, `duration`, `curve` and the kind's parameters. Nil for the preset's.
    public var transition: ConfigNode?
    /// Ken Burns motion, as written: a kind, or a mapping of `kind`, `amount`, `curve`,
    /// `center`. Nil for the preset's.
    public var motion: ConfigNode?
    /// How a clip is played (trim, sound); the defaults when nil.
    public var clip: ClipSettings?
    /// Text over the slide's page, as written (font files resolved); read against the
    /// preset's styles when the job is made.
    public var overlays: ConfigNode?
    /// How the picture fills the page; nil for the preset's `fit`.
    public var fit: Fit?
    /// The colour around a fitted picture (`fit: color`); nil for the canvas's background.
    public var background: Color?
    /// Whether the slide names its file with `clip:`, which must then be a clip.
    public var declaredClip = false
    /// The shortest and longest its hold may become to put its cut on the beat (`timing:
    /// beats`); nil for the timing's own bounds.
    public var minHold: Double?
    public var maxHold: Double?
    /// The clip keys the slide gives (`start`, `end`, ...), which a still image cannot take.
    public var clipKeys: [String] = []
    /// Where the slide is written, and its key (`slides[2]`), for errors.
    public var origin: ConfigOrigin
    public var key: String = "slide"

    public init(image: String, hold: Double? = nil, transition: ConfigNode? = nil, motion: ConfigNode? = nil,
                clip: ClipSettings? = nil, origin: ConfigOrigin = .builtIn) {
        self.image = image
        self.hold = hold
        self.transition = transition
        self.motion = motion
        self.clip = clip
        self.origin = origin
    }

    /// Reads a list of slides (`slides:` of a story file or a manifest job); files are
    /// resolved by `resolve` (relative to the file) and must exist.
    static func list(_ node: ConfigNode, key: String, resolve: (String) -> String) throws -> [StorySlide] {
        guard case let .sequence(items) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: ConfigReader.kind(of: node), expected: "a list of slides, each with an image or a clip")
        }
        guard !items.isEmpty else {
            throw PresetError.invalid(key: key, origin: node.origin, value: "an empty list", expected: "one or more slides")
        }
        // Every slide is read, and every problem of each: they are reported together.
        var slides: [StorySlide] = []
        var problems: [PresetError] = []
        for (index, item) in items.enumerated() {
            do {
                slides.append(try slide(item, key: "\(key)[\(index + 1)]", resolve: resolve))
            } catch let error as PresetError {
                problems += error.all
            }
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        return slides
    }

    /// One slide, all of its problems thrown together.
    private static func slide(_ item: ConfigNode, key name: String, resolve: (String) -> String) throws -> StorySlide {
        var problems: [PresetError] = []
        /// `read`'s value, or nil with its problem noted.
        func noting<T>(_ read: () throws -> T) throws -> T? {
            do { return try read() } catch let error as PresetError { problems += error.all; return nil }
        }
        var r = try ConfigReader(item, path: name)
        let imageNode = r.raw("image", type: "text", "The slide's picture (JPEG, PNG, WebP, HEIC) or clip, relative to the file.")
        let clipNode = r.raw("clip", type: "text", "The slide's video clip (MP4, MOV, WebM, ...), relative to the file; instead of image.")
        var file: String?
        let fileKey = imageNode == nil ? "clip" : "image"
        if (imageNode == nil) == (clipNode == nil) {
            problems.append(.missingKey(key: r.fullKey(imageNode == nil ? "image" : "clip"), origin: item.origin,
                                        expected: imageNode == nil ? "an image or a clip (image: photo.jpg or clip: video.mp4)"
                                                                   : "one of image and clip, not both"))
        } else if let fileNode = imageNode ?? clipNode, let written = try noting({ try ConfigReader.string(fileNode, key: r.fullKey(fileKey)) }) {
            if written.isEmpty {
                problems.append(.invalid(key: r.fullKey(fileKey), origin: fileNode.origin, value: "empty", expected: "the file's path"))
            } else {
                let resolved = resolve(written)
                if Paths.found(resolved) == .nothing {
                    problems.append(.invalid(key: r.fullKey(fileKey), origin: fileNode.origin, value: "'\(resolved)'",
                                             expected: "a file that exists (no such file)"))
                } else {
                    file = resolved
                }
            }
        }
        let holdNode = r.raw("hold", type: "number", "Seconds on screen between its transitions; default: the preset's hold (a clip's: its trimmed length less its transitions).")
        let hold = try holdNode.flatMap { node in
            try noting { () -> Double in
                let value = try ConfigReader.number(node, key: r.fullKey("hold"))
                guard (0...3600).contains(value) else {
                    throw PresetError.outOfRange(key: r.fullKey("hold"), origin: node.origin, value: format(value), range: "0...3600")
                }
                return value
            }
        }
        let minHold = try noting { try BeatTiming.seconds(&r, "min", "Under timing: beats, the shortest its hold may become to put its cut on the grid; ~: timing.min.") } ?? nil
        let maxHold = try noting { try BeatTiming.seconds(&r, "max", "Under timing: beats, the longest its hold may become to put its cut on the grid; ~: timing.max.") } ?? nil
        let transition = r.raw("transition", type: "text or mapping", "The cut to the next slide: cut, a transition's name, or {kind, duration, curve, ...}.")
            .map { SettingFiles.resolvingSection("transition", $0, resolve) }
        let motion = r.raw("motion", type: "text or mapping", "Ken Burns motion: in, out, left, right, up, down, none, or {kind, amount, curve, center}.")
        let clip = try noting { try StorySlide.clipSettings(&r, item: item) }
        let overlays = r.raw("overlays", type: "[overlay]", "Text and stickers over the slide's page, turning and zooming with it: a list of {text or image, at, anchor, ...}.")
        let fit = try noting {
            Fit(rawValue: try r.choice("fit", default: "", among: Fit.allCases.map(\.rawValue), "How the picture fills the page; default: the preset's fit."))
        } ?? nil
        let background = try noting {
            try r.parsed("background", default: Color?.none, type: "color", expected: "an opaque color: #RRGGBB or a name (black, white, ...)",
                         "The colour around the fitted picture (fit: color); default: the canvas's background.") { text -> Color?? in
                guard let color = Color(parsing: text), color.alpha == 1 else { return nil }
                return .some(color)
            }
        } ?? nil
        _ = try noting { try r.finish() }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        var slide = StorySlide(image: file!, hold: hold, transition: transition, motion: motion, clip: clip?.settings, origin: item.origin)
        slide.overlays = overlays?.resolvingFiles(resolve)
        slide.fit = fit
        slide.background = background
        slide.minHold = minHold
        slide.maxHold = maxHold
        slide.declaredClip = clipNode != nil
        slide.clipKeys = clip?.given ?? []
        slide.key = name
        return slide
    }

    /// The clip keys of a slide: the part played (start, and duration or end) and its sound.
    static func clipSettings(_ r: inout ConfigReader, item: ConfigNode) throws -> (settings: ClipSettings?, given: [String]) {
        let keys = ["start", "duration", "end", "audio", "volume"]
        let given = keys.filter { item[$0] != nil }
        var settings = ClipSettings()
        settings.part.start = try r.number("start", default: 0, in: 0...86400, "A clip's start: seconds into the file where its part begins.")
        let duration = try r.number("duration", default: 0, in: 0...86400, "A clip's part: seconds played from start (or give end); default: the rest of the clip.")
        let end = try r.number("end", default: 0, in: 0...86400, "A clip's part: seconds into the file where it ends (or give duration).")
        settings.audio = try r.flag("audio", default: false, "Mix the clip's own sound into the soundtrack.")
        settings.volume = try r.number("volume", default: 1, in: 0...4, "Gain of the clip's sound (1: as recorded).")
        if given.contains("duration") && given.contains("end") {
            throw PresetError.invalid(key: r.fullKey("end"), origin: item["end"]!.origin, value: format(end), expected: "duration or end, not both")
        }
        if given.contains("duration") {
            guard duration > 0 else { throw PresetError.invalid(key: r.fullKey("duration"), origin: item["duration"]!.origin, value: "0", expected: "a duration above 0 seconds") }
            settings.part.end = .after(duration)
        }
        if given.contains("end") {
            guard end > settings.part.start else {
                throw PresetError.invalid(key: r.fullKey("end"), origin: item["end"]!.origin, value: format(end),
                                          expected: "a time after start (\(format(settings.part.start)) s)")
            }
            settings.part.end = .at(end)
        }
        return (given.isEmpty ? nil : settings, given)
    }
}

/// A story file: a preset for the defaults, overrides, and the slides.
///
/// ```yaml
/// preset: stories-cube
/// set: {canvas.size: [1080, 1920]}
/// slides:
///   - image: beach.jpg
///     hold: 2.5
///     motion: in
///     transition: {kind: crossfade, duration: 0.4}
///   - image: dog.png
/// ```
public struct Story: Sendable {
    /// The preset's name or path (a path relative to the story's folder); nil for the default.
    public var preset: String?
    /// Preset keys the story sets (dotted or nested), applied after the preset.
    public var settings: [(key: String, value: ConfigNode)]
    public var slides: [StorySlide]
    /// Text over the whole video, fixed to the screen, as written (font files resolved).
    public var overlays: ConfigNode?
    /// Subtitles burnt in, as written (files resolved).
    public var captions: ConfigNode?
    /// Voice tracks, as written (files resolved); see `Voice.list`.
    public var voice: ConfigNode?
    /// The values its `{{variables}}` and its preset's were given (defaults included).
    public var vars: [String: String] = [:]

    /// The largest story file read, in bytes.
    public static let maxFileSize = 1 << 20

    /// Reads a story file, its `{{variables}}` given `vars` over the defaults its `vars:`
    /// declares (see `StoryTemplate`).
    /// `preset` replaces the story's own, whose variables are the story's too.
    public static func load(_ path: String, vars: [String: String] = [:], library: PresetLibrary? = nil, preset: String? = nil) throws -> Story {
        try StoryTemplate.load(path, library: library, preset: preset).story(vars)
    }

    /// A story from its tree; `path` is the file it came from, whose folder relative paths
    /// are taken from.
    static func read(tree root: ConfigNode, path: String) throws -> Story {
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { Paths.resolve(p, in: folder) }
        var r = try ConfigReader(root)
        let preset = try r.raw("preset", type: "text", "A preset's name or file, for the defaults.").map { try ConfigReader.string($0, key: "preset") }
        var settings = SettingFiles.resolving(try r.settings("set", "Preset keys, dotted or nested, as --set takes them."), resolve)
        if let audio = r.raw("audio", type: "audio", "The soundtrack: a file (relative to the story), 'silence', or a mapping with file, start, volume, fadeIn, fadeOut, loop.") {
            settings.append((key: "audio", value: ConfigNode.audio(audio, resolve: resolve)))
        }
        if let timing = r.raw("timing", type: "text or mapping", "Cuts on the music's beat: beats, or {beats: true|strict, every, on, offset, fit, min, max, confidence}, as the preset key timing.") {
            settings.append((key: "timing", value: timing))
        }
        if let target = r.raw("target", type: "text", "The platform the video is for (instagram-story, instagram-reel, tiktok, youtube-short, youtube), as the preset key target.") {
            settings.insert((key: "target", value: target), at: 0)
        }
        if let styles = r.raw("styles", type: "mapping", "Named text styles for this story, over the preset's: {name: {font, size, color, ...}}.") {
            settings.append((key: "styles", value: styles.resolvingFiles(resolve)))
        }
        let overlays = r.raw("overlays", type: "[overlay]", "Text over the whole video, fixed to the screen above the transitions; start and end count from the video's start.")
        let voice = r.raw("voice", type: "[voice]", "Voice tracks on the video's timeline: a list of files or {file, at, volume, start, duration}; the music ducks under them.")
        let captions = r.raw("captions", type: "file or mapping", "Subtitles burnt in: an SRT or WebVTT file, or {file, words: highlight|reveal|none, highlight, at, anchor, width, style, text keys}.")
        guard let slidesNode = r.raw("slides", type: "[slide]", "The slides, in order.") else {
            try r.finish()
            throw PresetError.missingKey(key: "slides", origin: root.origin, expected: "a list of slides, each with an image")
        }
        try r.finish()
        return Story(preset: preset.map { PresetLibrary.looksLikePath($0) ? resolve($0) : $0 }, settings: settings,
                     slides: try StorySlide.list(slidesNode, key: "slides", resolve: resolve),
                     overlays: overlays?.resolvingFiles(resolve), captions: captions.map { Story.resolvingCaptionFile($0.resolvingFiles(resolve), resolve) },
                     voice: voice.map { Story.resolvingVoiceFiles($0, resolve) })
    }
}

extension Story {
    /// A `voice:` list with its files resolved (relative to the story).
    static func resolvingVoiceFiles(_ node: ConfigNode, _ resolve: (String) -> String) -> ConfigNode {
        guard case let .sequence(items) = node.value else { return node }
        return ConfigNode(.sequence(items.map { resolvingCaptionFile($0, resolve) }), origin: node.origin)
    }

    /// A `captions:` value with its file resolved (relative to the story).
    static func resolvingCaptionFile(_ node: ConfigNode, _ resolve: (String) -> String) -> ConfigNode {
        switch node.value {
        case let .scalar(text, quoted):
            return ConfigNode(.scalar(resolve(text), quoted: quoted), origin: node.origin)
        case let .mapping(pairs):
            return ConfigNode(.mapping(pairs.map { pair in
                guard pair.key == "file", case let .scalar(text, quoted) = pair.value.value else { return pair }
                return (key: "file", value: ConfigNode(.scalar(resolve(text), quoted: quoted), origin: pair.value.origin))
            }), origin: node.origin)
        case .sequence:
            return node
        }
    }
}

/// What every slide of a story shows and how it leaves: the slides' settings read against
/// the preset.
public struct StoryPlan: Sendable, Equatable {
    public var holds: [Double]
    public var motions: [Motion]
    /// The cut after each slide but the last.
    public var cuts: [Cut]

    /// How one slide gives way to the next.
    public enum Cut: Sendable, Equatable {
        /// A hard cut: the next slide at once, no frame between them.
        case cut
        /// A transition that joins the two slides' pages.
        case transition(Preset.TransitionSettings)

        /// Seconds the change takes.
        public var duration: Double {
            if case let .transition(settings) = self { return settings.duration }
            return 0
        }

        /// The transition's settings; nil for a hard cut.
        public var settings: Preset.TransitionSettings? {
            if case let .transition(settings) = self { return settings }
            return nil
        }
    }

    /// The plan of `slides` under `preset`. Every cut must join two pages: a transition that
    /// builds screens of its own (a grid tour, a cube of every page) is a whole-story preset.
    /// A clip's slide (`clips`, by slide) holds, unless it says otherwise, for its trimmed
    /// length less its transitions: it is on screen as long as it plays (the preset's hold
    /// when the file does not say how long it is).
    /// Durations given in beats last `beat` seconds a beat (`timing: beats`).
    public init(slides: [StorySlide], preset: Preset, clips: [Int: ClipSlide] = [:], beat: Double? = nil) throws {
        motions = try slides.map { slide in try slide.motion.map { try StoryPlan.motion($0, base: preset.motion) } ?? preset.motion }
        var cuts: [Cut] = []
        for slide in slides.dropLast() {
            var cut = try slide.transition.map { try StoryPlan.cut($0, preset: preset.transition, beats: preset.timing.isOn) } ?? .transition(preset.transition)
            if let beat, let settings = cut.settings { cut = .transition(settings.timed(beat: beat)) }
            if let settings = cut.settings { try StoryPlan.checkJoinsTwoPages(settings, origin: slide.transition?.origin ?? slide.origin) }
            cuts.append(cut)
        }
        self.cuts = cuts
        holds = slides.indices.map { i in
            if let hold = slides[i].hold { return hold }
            guard let length = clips[i]?.length else { return preset.hold }
            let incoming = i > 0 ? cuts[i - 1].duration : 0
            let outgoing = i < cuts.count ? cuts[i].duration : 0
            return max(0, length - incoming - outgoing)
        }
    }

    /// A transition that builds screens of its own cannot be one cut of a story.
    static func checkJoinsTwoPages(_ cut: Preset.TransitionSettings, origin: ConfigOrigin) throws {
        guard !type(of: cut.transition).joinsTwoPages else { return }
        throw notACut(cut.kind, origin: origin, why: "'\(cut.kind)' builds screens of its own")
    }

    /// What a story's cut may name: `cut`, or a transition that joins two slides.
    static var cutKinds: [String] { ["cut"] + TransitionRegistry.joiningTwoPages }

    /// The error for a cut that names `kind`, which is none of `cutKinds`.
    static func notACut(_ kind: String, origin: ConfigOrigin, key: String = "transition", why: String) -> PresetError {
        .invalid(key: key, origin: origin, value: "'\(kind)'",
                 expected: "a transition that joins two slides (one of: \(cutKinds.joined(separator: ", "))); \(why) and is used as a whole-story preset, with inputs and no transition per slide")
    }

    /// Refuses a cut whose kind is none of `cutKinds`, saying why: a transition that builds
    /// screens of its own, a preset's name (a whole-story preset's), or a name unknown.
    static func checkCutKind(_ node: ConfigNode, origin: ConfigOrigin, key: String) throws {
        guard case let .scalar(kind, _) = node.value, !cutKinds.contains(kind) else { return }
        if let type = TransitionRegistry.named(kind) {
            if !type.joinsTwoPages { throw notACut(kind, origin: origin, key: key, why: "'\(kind)' builds screens of its own") }
            return
        }
        if let preset = try? Preset.load(kind, library: .builtIn), !type(of: preset.transition.transition).joinsTwoPages {
            throw notACut(kind, origin: origin, key: key, why: "'\(kind)' is the name of a built-in preset whose transition, \(preset.transition.kind), builds screens of its own")
        }
        let hint = suggestion(for: kind, among: cutKinds).map { "; did you mean '\($0)'?" } ?? ""
        throw PresetError.invalid(key: key, origin: origin, value: "'\(kind)'",
                                  expected: "one of: \(cutKinds.joined(separator: ", "))\(hint)")
    }

    static func motion(_ node: ConfigNode, base: Motion) throws -> Motion {
        if case let .scalar(text, _) = node.value {
            guard let kind = Motion.Kind(rawValue: text) else {
                let names = Motion.Kind.allCases.map(\.rawValue)
                let hint = suggestion(for: text, among: names).map { "; did you mean '\($0)'?" } ?? ""
                throw PresetError.invalid(key: "motion", origin: node.origin, value: "'\(text)'", expected: "one of: \(names.joined(separator: ", "))\(hint)")
            }
            var motion = base
            motion.kind = kind
            return motion
        }
        var r = try ConfigReader(node, path: "motion")
        let motion = try Motion(reading: &r, default: base)
        try r.finish()
        return motion
    }

    static func cut(_ node: ConfigNode, preset: Preset.TransitionSettings, beats: Bool = false) throws -> Cut {
        var mapping = node
        if case .scalar = node.value { mapping = ConfigNode(.mapping([("kind", node)]), origin: node.origin) }
        if case let .mapping(pairs) = mapping.value, pairs.count == 1, case .scalar("cut", _)? = mapping["kind"]?.value { return .cut }
        if let kind = mapping["kind"] {
            var written = "transition.kind"
            if case .scalar = node.value { written = "transition" }
            if case .scalar("cut", _) = kind.value {
                throw PresetError.invalid(key: "transition", origin: node.origin, value: "a cut with other keys",
                                          expected: "transition: cut alone (a hard cut has no duration, curve or parameters)")
            }
            try checkCutKind(kind, origin: kind.origin, key: written)
        }
        var r = try ConfigReader(mapping, path: "transition")
        let cut = try Preset.TransitionSettings(reading: &r, over: preset, beats: beats)
        try r.finish()
        return .transition(cut)
    }
}
