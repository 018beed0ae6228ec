import Foundation

/// One slide of a story: its picture, and what it sets for itself (the rest comes from the
/// preset). Its `transition` and `motion` are kept as written and read against the preset
/// when the job is made, so their errors name the story's file and line.
public struct StorySlide: Sendable {
    /// The picture's path.
    public var image: String
    /// Seconds on screen between its transitions; nil for the preset's hold.
    public var hold: Double?
    /// The cut to the next slide, as written: `cut`, a transition's name, or a mapping of
    /// `kind`, `duration`, `curve` and the kind's parameters. Nil for the preset's.
    public var transition: ConfigNode?
    /// Ken Burns motion, as written: a kind, or a mapping of `kind`, `amount`, `curve`,
    /// `center`. Nil for the preset's.
    public var motion: ConfigNode?
    /// Where the slide is written.
    public var origin: ConfigOrigin

    public init(image: String, hold: Double? = nil, transition: ConfigNode? = nil, motion: ConfigNode? = nil, origin: ConfigOrigin = .builtIn) {
        self.image = image
        self.hold = hold
        self.transition = transition
        self.motion = motion
        self.origin = origin
    }

    /// Reads a list of slides (`slides:` of a story file or a manifest job); images are
    /// resolved by `resolve` (relative to the file) and must exist.
    static func list(_ node: ConfigNode, key: String, resolve: (String) -> String) throws -> [StorySlide] {
        guard case let .sequence(items) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: ConfigReader.kind(of: node), expected: "a list of slides, each with an image")
        }
        guard !items.isEmpty else {
            throw PresetError.invalid(key: key, origin: node.origin, value: "an empty list", expected: "one or more slides")
        }
        return try items.enumerated().map { index, item in
            var r = try ConfigReader(item, path: "\(key)[\(index + 1)]")
            let image = resolve(try r.requiredText("image", expected: "the picture's path", "The slide's picture (JPEG, PNG, WebP), relative to the file."))
            let holdNode = r.raw("hold", type: "number", "Seconds on screen between its transitions; default: the preset's hold.")
            let hold = try holdNode.map { node -> Double in
                let value = try ConfigReader.number(node, key: r.fullKey("hold"))
                guard (0...3600).contains(value) else {
                    throw PresetError.outOfRange(key: r.fullKey("hold"), origin: node.origin, value: format(value), range: "0...3600")
                }
                return value
            }
            let transition = r.raw("transition", type: "text or mapping", "The cut to the next slide: cut, a transition's name, or {kind, duration, curve, ...}.")
            let motion = r.raw("motion", type: "text or mapping", "Ken Burns motion: in, out, left, right, up, down, none, or {kind, amount, curve, center}.")
            try r.finish()
            guard FileManager.default.fileExists(atPath: image) else {
                throw PresetError.invalid(key: r.fullKey("image"), origin: item["image"]?.origin ?? item.origin, value: "'\(image)'",
                                          expected: "a picture that exists (no such file)")
            }
            return StorySlide(image: image, hold: hold, transition: transition, motion: motion, origin: item.origin)
        }
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

    /// The largest story file read, in bytes.
    public static let maxFileSize = 1 << 20

    public static func load(_ path: String) throws -> Story {
        let text = try PresetLibrary.read(path, limit: maxFileSize, kind: "story")
        let root = try ConfigNode.parse(yaml: text, name: "story \(path)")
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { p.hasPrefix("/") || folder.isEmpty ? p : Manifest.normalized(folder + "/" + p) }
        var r = try ConfigReader(root)
        let preset = try r.raw("preset", type: "text", "A preset's name or file, for the defaults.").map { try ConfigReader.string($0, key: "preset") }
        var settings = try r.settings("set", "Preset keys, dotted or nested, as --set takes them.")
        if let audio = r.raw("audio", type: "audio", "The soundtrack: a file (relative to the story), 'silence', or a mapping with file, start, volume, fadeIn, fadeOut, loop.") {
            settings.append((key: "audio", value: ConfigNode.audio(audio, resolve: resolve)))
        }
        guard let slidesNode = r.raw("slides", type: "[slide]", "The slides, in order.") else {
            try r.finish()
            throw PresetError.missingKey(key: "slides", origin: root.origin, expected: "a list of slides, each with an image")
        }
        try r.finish()
        return Story(preset: preset.map { PresetLibrary.looksLikePath($0) ? resolve($0) : $0 }, settings: settings,
                     slides: try StorySlide.list(slidesNode, key: "slides", resolve: resolve))
    }
}

/// What every slide of a story shows and how it leaves: the slides' settings read against
/// the preset.
public struct StoryPlan: Sendable, Equatable {
    public var holds: [Double]
    public var motions: [Motion]
    /// The cut after each slide but the last.
    public var cuts: [Preset.TransitionSettings]

    /// The plan of `slides` under `preset`. Every cut must join two pages: a transition that
    /// builds screens of its own (a grid tour, a cube of every page) is a whole-story preset.
    public init(slides: [StorySlide], preset: Preset) throws {
        holds = slides.map { $0.hold ?? preset.hold }
        motions = try slides.map { slide in try slide.motion.map { try StoryPlan.motion($0, base: preset.motion) } ?? preset.motion }
        var cuts: [Preset.TransitionSettings] = []
        for slide in slides.dropLast() {
            let cut = try slide.transition.map { try StoryPlan.cut($0, preset: preset.transition) } ?? preset.transition
            try StoryPlan.checkJoinsTwoPages(cut, origin: slide.transition?.origin ?? slide.origin)
            cuts.append(cut)
        }
        self.cuts = cuts
    }

    /// A transition that builds screens of its own cannot be one cut of a story.
    static func checkJoinsTwoPages(_ cut: Preset.TransitionSettings, origin: ConfigOrigin) throws {
        guard let type = TransitionRegistry.named(cut.kind), !type.joinsTwoPages else { return }
        var joining: [String] = []
        for candidate in TransitionRegistry.all where candidate.joinsTwoPages { joining.append(candidate.name) }
        throw PresetError.invalid(key: "transition", origin: origin, value: "'\(cut.kind)'",
                                  expected: "a transition that joins two slides (\(joining.joined(separator: ", "))); '\(cut.kind)' builds screens of its own and is used as a whole-story preset, with inputs and no transition per slide")
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

    static func cut(_ node: ConfigNode, preset: Preset.TransitionSettings) throws -> Preset.TransitionSettings {
        var mapping = node
        if case .scalar = node.value { mapping = ConfigNode(.mapping([("kind", node)]), origin: node.origin) }
        if case let .mapping(pairs) = mapping.value, pairs.count == 1, case .scalar("cut", _)? = mapping["kind"]?.value { return .cut }
        var r = try ConfigReader(mapping, path: "transition")
        let cut = try Preset.TransitionSettings(reading: &r, over: preset)
        try r.finish()
        return cut
    }
}
