import Foundation

/// Everything a video is made with, bar its inputs: canvas, timing, transition and encoding.
/// Presets are YAML files; every key may be overridden by its dotted path (`--set`).
public struct Preset: Equatable, Sendable {
    public enum Codec: String, CaseIterable, Sendable {
        case h264, hevc
        /// The FFmpeg encoder that writes it.
        public var encoderName: String { self == .h264 ? "libx264" : "libx265" }
    }

    public struct EncodeSettings: Equatable, Sendable {
        public var codec: Codec = .h264
        /// Constant rate factor: lower is better quality and larger files.
        public var crf: Int = 20
        /// The encoder's speed preset.
        public var speed: String = "medium"
        /// Encoder threads. Fixed rather than the machine's core count, because the encoder's
        /// output bytes depend on it.
        public var threads: Int = 2
        /// The same bytes on every run (x264's lookahead in the calling thread); false lets
        /// x264 look ahead on a thread of its own: faster, the bytes depending on timing.
        public var deterministic = true
        /// A cap on the video's bit rate in kbit/s (over a buffer of two seconds' worth), as
        /// platforms' upload limits ask; 0 for none.
        public var maxRate = 0
        /// Frames between keyframes; 0 leaves it to the encoder.
        public var gop = 0
        /// Consecutive B-frames at most; -1 leaves it to the encoder.
        public var bframes = -1
    }

    /// The x264/x265 speed presets, fastest first.
    public static let speeds = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    public var description = ""
    /// Size in pixels, points-to-pixels scale, background.
    public var canvas = Canvas(width: 1080, height: 1920, scale: 3, background: .black)
    /// Frames per second, exactly (29.97 is 30000/1001).
    /// Setting it (outside the reader) marks the rate as given.
    public var fps: FrameRate = 30 { didSet { rateGiven = true } }
    /// Whether the rate was given above the preset's own files (by a story, a job, the command
    /// line, or code that set `fps`): an output with a rate of its own (a GIF's 15 fps) takes
    /// it only when not.
    public var rateGiven = false
    /// Seconds each input is shown still.
    public var hold = 2.0
    /// How each input fills the canvas.
    public var fit: Fit = .fill
    public var transition = TransitionSettings()
    /// Ken Burns motion of every slide that does not set its own.
    public var motion = Motion()
    public var encode = EncodeSettings()
    /// The MP4's soundtrack; PNG, framemd5 and sheet outputs have none.
    public var audio = AudioSettings()
    /// How a GIF output is written.
    public var gif = GIFSettings()
    /// How an animated WebP output is written.
    public var webp = WebPSettings()
    /// The style of text overlays that name none (and of `--text`).
    public var text = TextStyle()
    /// Named text styles: the shipped ones (`TextStyle.shipped`) and the preset's own.
    public var styles = TextStyle.shipped
    /// Cuts timed to the music's beat (`timing: beats`); off unless asked for.
    public var timing = BeatTiming()
    /// A picture fixed to the screen over every frame (a watermark); nil for none.
    public var logo: Overlay?
    /// The platform the video is made for (its keys lie under the user's); nil for none.
    public var target: Target?

    public init() {}

    /// Reads a preset from its configuration tree, validating every key; `schema`, if given,
    /// records each key read.
    public init(_ node: ConfigNode, schema: ConfigReader.Schema? = nil) throws {
        // `audio: FILE` (or `--set audio=silence`): a path from the command line is the user's own.
        var r = try ConfigReader(node.resolvingAudio { $0 }.timingShorthand())
        r.schema = schema
        description = try r.text("description", default: "", "One line saying what the preset makes.")

        var c = try r.section("canvas")
        (canvas.width, canvas.height) = try c.integerPair("size", default: (1080, 1920), in: 2...16384,
                                                          "Output size in pixels, [width, height]; even for MP4; at most \(Canvas.maxPixels) pixels in all (8192x4320, 16384x2048: H.264's and HEVC's largest picture).")
        guard canvas.width * canvas.height <= Canvas.maxPixels else {
            throw PresetError.invalid(key: c.fullKey("size"), origin: c.node["size"]?.origin ?? c.node.origin, value: "[\(canvas.width), \(canvas.height)]",
                                      expected: "at most \(Canvas.maxPixels) pixels in all, the largest picture H.264 and HEVC take (8192x4320, 16384x2048)")
        }
        canvas.scale = try c.number("scale", default: 3, in: 0.25...16, "Pixels per point; the scene is laid out in size ÷ scale points.")
        canvas.background = try c.parsed("background", default: .black, type: "color", expected: "an opaque color (#RRGGBB or a name: black, white, ...) or transparent",
                                         "Color beneath the pages; transparent keeps what no layer covers see-through, for the outputs with alpha (\(OutputFormat.alphaOutputs)).") { text in
            text == "transparent" ? Color.clear : Color(parsing: text).flatMap { $0.alpha == 1 ? $0 : nil }
        }
        let safe = try c.numbers("safeArea", default: [0, 0, 0, 0], in: 0...0.45, expected: "[top, right, bottom, left], each 0...0.45",
                                 "Margins of the screen (a platform's buttons and captions), [top, right, bottom, left] in 0...1 of the canvas, that overlays placed by default keep out of (captions, --text, a logo without at); one given at stays where it is put, with a warning. A target sets them.") { $0.count == 4 }
        canvas.safeArea = EdgeInsets(top: safe[0], right: safe[1], bottom: safe[2], left: safe[3])
        try c.finish()

        let targetName = try r.choice("target", default: "none", among: ["none"] + Target.allCases.map(\.rawValue),
                                      "The platform the video is for: its size, rate, rate cap, loudness and safe area, under the keys given; and what it refuses, checked.")
        target = Target(rawValue: targetName)

        fps = try r.parsed("fps", default: FrameRate(30), type: "rate", expected: "a frame rate from 1 to 240: 30, 29.97 (30000/1001), 23.976, 59.94 or a fraction N/D",
                           "Frames per second; 29.97, 23.976 and 59.94 are the exact NTSC rates (30000/1001, ...).") { text in
            FrameRate(parsing: text).flatMap { (1...240).contains($0.value) ? $0 : nil }
        }
        hold = try r.number("hold", default: 2, in: 0...3600, "Seconds each input is shown still.")
        fit = Fit(rawValue: try r.choice("fit", default: "fill", among: Fit.allCases.map(\.rawValue), "How an input fills the canvas: \(Fit.meanings)."))!

        var b = try r.section("timing")
        timing = try BeatTiming(reading: &b)
        try b.finish()

        var t = try r.section("transition")
        transition = try TransitionSettings(reading: &t, beats: timing.isOn)
        try t.finish()

        var m = try r.section("motion")
        motion = try Motion(reading: &m, default: Motion())
        try m.finish()

        var e = try r.section("encode")
        encode.codec = Codec(rawValue: try e.choice("codec", default: "h264", among: Codec.allCases.map(\.rawValue), "Video codec."))!
        encode.crf = try e.integer("crf", default: 20, in: 0...51, "Constant rate factor: lower is better and larger.")
        encode.speed = try e.choice("speed", default: "medium", among: Preset.speeds, "Encoder speed preset: faster encodes bigger files.")
        encode.threads = try e.integer("threads", default: 2, in: 1...64, "Encoder threads; fixed so output bytes do not depend on the machine.")
        encode.deterministic = try e.flag("deterministic", default: true, "The same MP4 bytes on every run (x264's lookahead in the encoding thread); false: x264's threaded lookahead, faster, the bytes depending on timing.")
        encode.gop = try e.integer("gop", default: 0, in: 0...1000, "Frames between keyframes (closed GOPs); 0: the encoder's own choice.")
        encode.bframes = try e.integer("bframes", default: -1, in: -1...16, "Consecutive B-frames at most; -1: the encoder's own choice.")
        encode.maxRate = try e.integer("maxRate", default: 0, in: 0...1_000_000, "A cap on the video's bit rate in kbit/s (a buffer of two seconds' worth), as a platform's upload limit asks; 0: none, the rate factor alone decides.")
        try e.finish()

        var g = try r.section("gif")
        gif = try GIFSettings(reading: &g)
        try g.finish()

        var w = try r.section("webp")
        webp = try WebPSettings(reading: &w)
        try w.finish()

        var a = try r.section("audio")
        audio = try AudioSettings(reading: &a)
        try a.finish()

        var x = try r.section("text")
        try text.read(&x)
        try x.finish()
        var l = try r.section("logo")
        logo = try Overlay.readSticker(&l, item: node["logo"] ?? ConfigNode(.mapping([]), origin: node.origin), limits: Limits(), base: Overlay.logoDefaults)
        try l.finish()
        if let node = r.raw("styles", type: "mapping", default: "{}", "Named text styles, each a mapping of the text keys (font, size, color, outline, box, shadow, ...) over the default text; they add to or replace the shipped classic, modern, neon, typewriter, strong and caption.") {
            styles = try TextStyle.named(node, key: "styles", over: styles)
        }
        try r.finish()
    }

    /// The screens a video of `inputs` images moves through.
    public func screenCount(inputs: Int) -> Int { transition.transition.screenCount(pages: inputs) }

    /// The timeline of a video over `screens` screens.
    public func timeline(screens: Int) -> Timeline {
        let transition = self.transition.transition
        let base = self.transition.duration, curve = self.transition.curve
        return Timeline(holds: (0..<screens).map { transition.hold(screen: $0, base: hold) }, fps: fps,
                        durations: (0..<max(0, screens - 1)).map { transition.duration(step: $0, base: base) },
                        progress: { step, linear in transition.progress(step: step, linear: linear, curve: curve) })
    }

    /// Loads a preset by name (from `library`: the user's folders, then the built-in presets)
    /// or by file path, then lays `overrides` (the command line's options and `--set`s) over it,
    /// then `settings` (dotted or nested keys with values from another file, a batch
    /// manifest's `set`).
    /// `underlying` settings (a story file's `set`) are laid over the preset before the overrides.
    /// `vars`: values for the preset's `{{variables}}`, over the defaults its `vars:` declares.
    public static func load(_ nameOrPath: String, overrides: PresetPatch = [], underlying: [(key: String, value: ConfigNode)] = [],
                            settings: [(key: String, value: ConfigNode)] = [], vars: [String: String] = [:],
                            library: PresetLibrary? = nil) throws -> Preset {
        let (node, rateGiven) = try resolve(nameOrPath, overrides: overrides, underlying: underlying, settings: settings, vars: vars, library: library)
        var preset = try Preset(node)
        preset.rateGiven = rateGiven
        return preset
    }

    /// The configuration tree `load` reads: the preset with what it extends beneath it, then
    /// the overrides, then the settings, each laid over the one before as a layer
    /// (`ConfigNode.layered(over:)`). The preset's `{{variables}}` get `vars` over their
    /// defaults (nil: they are kept as written).
    public static func resolvedNode(_ nameOrPath: String, overrides: PresetPatch = [], underlying: [(key: String, value: ConfigNode)] = [],
                                    settings: [(key: String, value: ConfigNode)] = [], vars: [String: String]? = [:],
                                    library: PresetLibrary? = nil) throws -> ConfigNode {
        try resolve(nameOrPath, overrides: overrides, underlying: underlying, settings: settings, vars: vars, library: library).node
    }

    /// The tree, layered once, and whether a layer above the preset's own files (the story's,
    /// the command line's, the job's) gives the frame rate.
    private static func resolve(_ nameOrPath: String, overrides: PresetPatch, underlying: [(key: String, value: ConfigNode)],
                                settings: [(key: String, value: ConfigNode)], vars: [String: String]?,
                                library: PresetLibrary?) throws -> (node: ConfigNode, rateGiven: Bool) {
        let library = try library ?? PresetLibrary.standard()
        // What lies over the preset, in order: the story's keys, the overrides, the settings.
        // Each is laid over what is beneath it in turn (a layer that changes the transition's
        // kind drops the parameters of the kind beneath it), once.
        let layers = try (underlying.isEmpty ? [] : [ConfigNode.layer(of: underlying)]) + [overrides.layer(), ConfigNode.layer(of: settings)]
        let upper = layers.reduce(ConfigNode(.mapping([]), origin: .builtIn)) { $1.merged(over: $0) }
        var base = try library.node(for: nameOrPath, vars: vars)
        // A target's keys lie over the preset and under everything else: the story's, the
        // job's and the command line's own keys win over it.
        if let target = try Target.named(in: upper["target"] != nil ? upper : base) {
            let fps = try upper["fps"].map { try ConfigReader.string($0, key: "fps") }.flatMap(FrameRate.init(parsing:))
            base = try target.settings(fps: fps).layer().layered(over: base)
        }
        return (layers.reduce(base) { $1.layered(over: $0) }, upper["fps"] != nil)
    }
}

/// Where presets are found by name: the folders given with `--presets`, then those in
/// `SEGUE_PRESETS` (separated by ':'), then the presets built into Segue (`Presets/*.yaml`
/// at build time). The first folder that has `NAME.yaml` wins, so a user's preset with a
/// shipped name replaces the shipped one; it may still `extends:` the shipped one by name.
public struct PresetLibrary: Sendable {
    /// The preset a story, a job or a template row gets when it names none.
    public static let defaultPreset = "stories-cube"

    /// Where one preset comes from.
    public enum Source: Equatable, Sendable, CustomStringConvertible {
        case builtIn
        case file(String)

        public var description: String {
            switch self {
            case .builtIn: return "built-in"
            case let .file(path): return path
            }
        }
    }

    /// Folders searched before the built-in presets, first wins.
    public var folders: [String]
    /// Whether the presets built into Segue are found (after the folders).
    public var includesBuiltIn: Bool

    public init(folders: [String] = [], includesBuiltIn: Bool = true) {
        self.folders = folders
        self.includesBuiltIn = includesBuiltIn
    }

    /// The built-in presets only.
    public static let builtIn = PresetLibrary()

    /// `presetFolders` (the command line's `--presets`), then the folders of `SEGUE_PRESETS`,
    /// then the built-in presets. A folder named that does not exist is an error.
    public static func standard(presetFolders: [String] = [],
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PresetLibrary {
        var named: [(folder: String, from: String)] = presetFolders.map { ($0, "--presets") }
        if let env = environment["SEGUE_PRESETS"] {
            named += env.split(separator: ":").map { (String($0), "SEGUE_PRESETS") }
        }
        for (folder, from) in named {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw PresetError.unreadable(folder, reason: "no such folder (named by \(from)); expected a folder of NAME.yaml presets")
            }
        }
        var seen = Set<String>()
        return PresetLibrary(folders: named.map(\.folder).filter { seen.insert($0).inserted })
    }

    /// One preset the library finds by name: where it comes from, and the ones of the same
    /// name it hides.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var source: Source
        public var hides: [Source]
    }

    /// Every name the library finds, sorted, with the source that wins.
    public func entries() -> [Entry] {
        var found: [String: [Source]] = [:]
        for folder in folders {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasSuffix(".yaml") {
                found[String(file.dropLast(5)), default: []].append(.file(folder + "/" + file))
            }
        }
        if includesBuiltIn {
            for preset in embeddedPresets { found[preset.name, default: []].append(.builtIn) }
        }
        return found.keys.sorted().map { Entry(name: $0, source: found[$0]![0], hides: Array(found[$0]!.dropFirst())) }
    }

    /// The names of the presets found, each once, sorted.
    public var names: [String] { entries().map(\.name) }

    /// The places a name is found, first wins.
    func candidates(_ name: String) -> [Source] {
        var sources: [Source] = folders.map { $0 + "/" + name + ".yaml" }.filter { FileManager.default.fileExists(atPath: $0) }.map(Source.file)
        if includesBuiltIn, embeddedPresets.contains(where: { $0.name == name }) { sources.append(.builtIn) }
        return sources
    }

    /// The source a name or path refers to.
    public func source(for nameOrPath: String) throws -> Source {
        try source(for: nameOrPath, excluding: [])
    }

    private func source(for nameOrPath: String, excluding chain: [String]) throws -> Source {
        if PresetLibrary.looksLikePath(nameOrPath) {
            guard FileManager.default.fileExists(atPath: nameOrPath) else {
                throw PresetError.unreadable(nameOrPath, reason: "no such file")
            }
            return .file(nameOrPath)
        }
        let found = candidates(nameOrPath)
        guard !found.isEmpty else {
            throw PresetError.presetNotFound(nameOrPath, searched: folders + (includesBuiltIn ? ["built-in"] : []), available: names)
        }
        // A preset that extends its own name means the next one down (a user's stories-cube
        // extending the built-in stories-cube).
        return found.first { !chain.contains(identity(of: $0, name: nameOrPath)) } ?? found[0]
    }

    private func identity(of source: Source, name: String) -> String {
        switch source {
        case .builtIn: return "built-in " + name
        case let .file(path): return URL(fileURLWithPath: path).standardizedFileURL.path
        }
    }

    /// The largest preset file read, in bytes.
    public static let maxFileSize = 1 << 20

    /// The configuration tree of a preset, with what it `extends:` laid beneath it.
    public func node(for nameOrPath: String) throws -> ConfigNode {
        try node(for: nameOrPath, relativeTo: nil, chain: [], values: nil)
    }

    /// `values`: the variables' values, rendered into each file's values before its paths are
    /// resolved (nil: as written).
    func node(for nameOrPath: String, relativeTo folder: String?, chain: [String], values: [String: String]?) throws -> ConfigNode {
        var reference = nameOrPath
        if let folder, PresetLibrary.looksLikePath(nameOrPath) {
            // Beside the file that names it; a file named bare ("brand.yaml") is in the working folder.
            reference = Paths.resolve(nameOrPath, in: folder)
        }
        let source = try source(for: reference, excluding: chain)
        let name = PresetLibrary.looksLikePath(nameOrPath) ? reference : nameOrPath
        let id = identity(of: source, name: name)
        guard !chain.contains(id) else {
            throw PresetError.invalid(key: "extends", origin: .file(chain.last ?? id, line: 1), value: "'\(nameOrPath)'",
                                      expected: "a preset that does not extend itself (the chain is \((chain + [id]).joined(separator: " -> ")))")
        }
        guard chain.count < 16 else {
            throw PresetError.invalid(key: "extends", origin: .file(id, line: 1), value: "a chain of \(chain.count + 1) presets", expected: "at most 16")
        }
        var node: ConfigNode
        var baseFolder: String?
        switch source {
        case .builtIn:
            let text = embeddedPresets.first { $0.name == name }!.text
            node = try PresetLibrary.parsed(text, name: "built-in preset \(name)").timingShorthand()
            if let values { node = try node.substitutingKeepingVars(values) }
        case let .file(path):
            node = try PresetLibrary.parsed(try PresetLibrary.read(path), name: "preset \(PresetLibrary.looksLikePath(nameOrPath) ? reference : (path as NSString).lastPathComponent)")
            if let values { node = try node.substitutingKeepingVars(values) }
            let folder = (path as NSString).deletingLastPathComponent
            baseFolder = folder
            // A preset's music and logo are found beside the preset.
            let resolve = { (path: String) in Paths.resolve(path, in: folder) }
            node = node.resolvingAudio(resolve).timingShorthand()
            if case let .mapping(pairs) = node.value { node.value = .mapping(SettingFiles.resolving(pairs, resolve)) }
        }
        guard let base = node["extends"] else { return node }
        guard case let .scalar(baseName, _) = base.value, !baseName.isEmpty else {
            throw PresetError.wrongType(key: "extends", origin: base.origin, found: ConfigReader.kind(of: base), expected: "a preset's name or file")
        }
        node.remove("extends")
        if node["description"] == nil {
            // Not the parent's words: they describe the parent.
            node.append("description", ConfigNode(.scalar("extends \(baseName)", quoted: true), origin: base.origin))
        }
        let baseNode = try self.node(for: baseName, relativeTo: baseFolder, chain: chain + [id], values: values)
        return node.layered(over: baseNode)
    }

    /// A preset file's (or story's) text, refusing files over the size limit and files that are not UTF-8.
    static func read(_ path: String, limit: Int = PresetLibrary.maxFileSize, kind: String = "preset") throws -> String {
        try Paths.text(of: path, limit: limit, kind: kind)
    }

    public static func looksLikePath(_ text: String) -> Bool {
        text.contains("/") || text.hasSuffix(".yaml") || text.hasSuffix(".yml")
    }

    /// Each preset's name, where it comes from and its description.
    /// A preset whose variables need values (a `vars:` name with no default) shows its own
    /// description and the `--var` it needs.
    public func catalog() -> [(entry: Entry, description: String)] {
        entries().map { entry in
            let needed = (try? variables(of: entry.name).missing([:])) ?? []
            if !needed.isEmpty, case let .scalar(text, _)? = (try? node(for: entry.name))?["description"]?.value {
                return (entry, text + " (needs " + needed.map { "--var \($0)=..." }.joined(separator: " ") + ")")
            }
            let description = (try? Preset(node(for: entry.name, vars: [:])).description) ?? "(does not load: run 'segue presets show \(entry.name)')"
            return (entry, description)
        }
    }
}
