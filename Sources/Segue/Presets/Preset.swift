import Foundation

/// Everything a video is made with, bar its inputs: canvas, timing, transition and encoding.
/// Presets are YAML files; every key may be overridden by its dotted path (`--set`).
public struct Preset: Equatable, Sendable {
    public struct TransitionSettings: Equatable, Sendable {
        public var choice: TransitionChoice = .storiesCube(.init())
        /// Seconds.
        public var duration: Double = 0.5
        public var curve: TimingCurve = .easeInEaseOut
    }

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
    }

    /// The x264/x265 speed presets, fastest first.
    public static let speeds = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    public var description = ""
    /// Size in pixels, points-to-pixels scale, background.
    public var canvas = Canvas(width: 1080, height: 1920, scale: 3, background: .black)
    /// Frames per second.
    public var fps = 30
    /// Seconds each input is shown still.
    public var hold = 2.0
    /// How each input fills the canvas.
    public var fit: ContentsGravity = .fill
    public var transition = TransitionSettings()
    public var encode = EncodeSettings()

    public init() {}

    /// Reads a preset from its configuration tree, validating every key; `schema`, if given,
    /// records each key read.
    public init(_ node: ConfigNode, schema: ConfigReader.Schema? = nil) throws {
        var r = try ConfigReader(node)
        r.schema = schema
        description = try r.text("description", default: "", "One line saying what the preset makes.")

        var c = try r.section("canvas")
        (canvas.width, canvas.height) = try c.integerPair("size", default: (1080, 1920), in: 2...16384,
                                                          "Output size in pixels, [width, height]; even for MP4.")
        canvas.scale = try c.number("scale", default: 3, in: 0.25...16, "Pixels per point; the scene is laid out in size ÷ scale points.")
        canvas.background = try c.parsed("background", default: .black, type: "color", expected: "an opaque color: #RRGGBB or a name (black, white, ...)",
                                         "Color beneath the pages.") { text in
            Color(parsing: text).flatMap { $0.alpha == 1 ? $0 : nil }
        }
        try c.finish()

        fps = try r.integer("fps", default: 30, in: 1...240, "Frames per second.")
        hold = try r.number("hold", default: 2, in: 0...3600, "Seconds each input is shown still.")
        fit = ContentsGravity(rawValue: try r.choice("fit", default: "fill", among: ContentsGravity.allCases.map(\.rawValue),
                                                     "How an input fills the canvas: fill crops, fit letterboxes, stretch distorts."))!

        var t = try r.section("transition")
        let kind = TransitionKind(rawValue: try t.choice("kind", default: nil, among: TransitionKind.names, "The transition between inputs."))!
        transition.duration = try t.number("duration", default: 0.5, in: 0...60, "Seconds each transition lasts.")
        transition.curve = try t.parsed("curve", default: .easeInEaseOut, expected: "one of: " + TimingCurve.names.joined(separator: ", "),
                                        "Timing curve applied to the transition's progress.") { TimingCurve(parsing: $0) }
        transition.choice = try TransitionChoice.read(kind, from: &t)
        try t.finish()

        var e = try r.section("encode")
        encode.codec = Codec(rawValue: try e.choice("codec", default: "h264", among: Codec.allCases.map(\.rawValue), "Video codec."))!
        encode.crf = try e.integer("crf", default: 20, in: 0...51, "Constant rate factor: lower is better and larger.")
        encode.speed = try e.choice("speed", default: "medium", among: Preset.speeds, "Encoder speed preset: faster encodes bigger files.")
        encode.threads = try e.integer("threads", default: 2, in: 1...64, "Encoder threads; fixed so output bytes do not depend on the machine.")
        try e.finish()
        try r.finish()
    }

    /// The screens a video of `inputs` images moves through.
    public func screenCount(inputs: Int) -> Int {
        let blank = Layer(frame: canvas.bounds)
        return transition.choice.transition.screens(pages: Array(repeating: blank, count: inputs), bounds: canvas.bounds).count
    }

    /// The timeline of a video over `screens` screens.
    public func timeline(screens: Int) -> Timeline {
        let transition = self.transition.choice.transition
        let base = self.transition.duration, curve = self.transition.curve
        return Timeline(screenCount: screens, fps: fps, hold: hold,
                        durations: (0..<max(0, screens - 1)).map { transition.duration(step: $0, base: base) },
                        progress: { step, linear in transition.progress(step: step, linear: linear, curve: curve) })
    }

    /// Every key a preset may have when its transition is `kind`, with type, default, range
    /// and meaning.
    public static func schema(for kind: TransitionKind) -> [ConfigReader.Field] {
        let schema = ConfigReader.Schema()
        let node = ConfigNode(.mapping([("transition", ConfigNode(.mapping([("kind", ConfigNode(.scalar(kind.rawValue, quoted: false), origin: .builtIn))]), origin: .builtIn))]), origin: .builtIn)
        _ = try? Preset(node, schema: schema)
        return schema.fields
    }

    /// A preset's configuration with every key in effect (defaults filled in), as YAML.
    public static func resolvedYAML(_ node: ConfigNode) throws -> String {
        let schema = ConfigReader.Schema()
        _ = try Preset(node, schema: schema)
        var text = ""
        var section = ""
        for field in schema.fields {
            let parts = field.key.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2 {
                if parts[0] != section { text += "\(parts[0]):\n"; section = parts[0] }
                text += "  \(parts[1]): \(field.value)\n"
            } else {
                section = ""
                text += "\(field.key): \(field.value)\n"
            }
        }
        return text
    }

    /// The preset reference as Markdown: the keys every preset has, then each transition's own.
    public static func referenceMarkdown() -> String {
        func table(_ fields: [ConfigReader.Field]) -> String {
            "| key | type | default | accepted | meaning |\n|---|---|---|---|---|\n" + fields.map { f in
                "| `\(f.key)` | \(f.type) | `\(f.defaultValue)` | \(f.range) | \(f.meaning) |"
            }.joined(separator: "\n") + "\n"
        }
        let shared = ["transition.kind", "transition.duration", "transition.curve"]
        let all = TransitionKind.allCases.map { ($0, schema(for: $0)) }
        let common = all[0].1.filter { !$0.key.hasPrefix("transition.") || shared.contains($0.key) }
        var text = """
            # Preset reference

            A preset is a YAML file of these keys; any key may be overridden on the command line
            with `--set KEY=VALUE` (the value read as YAML). Keys left out take their default.
            This page is generated from the schema the preset reader declares, and a test checks
            that it is current.

            ## Keys of every preset

            \(table(common))
            """
        for (kind, fields) in all {
            let own = fields.filter { $0.key.hasPrefix("transition.") && !shared.contains($0.key) }
            text += "\n## `transition.kind: \(kind.rawValue)`\n\n"
            text += own.isEmpty ? "No keys of its own.\n" : table(own)
        }
        return text
    }

    /// Loads a preset by name (from the preset folders) or by file path, then applies
    /// `overrides` (`KEY=VALUE`, the value read as YAML), then `settings` (dotted keys with
    /// values from another file, a batch manifest's `set`).
    public static func load(_ nameOrPath: String, overrides: [String] = [],
                            settings: [(key: String, value: ConfigNode)] = []) throws -> Preset {
        try Preset(resolvedNode(nameOrPath, overrides: overrides, settings: settings))
    }

    /// The configuration tree `load` reads, with extends, overrides and settings applied.
    public static func resolvedNode(_ nameOrPath: String, overrides: [String] = [],
                                    settings: [(key: String, value: ConfigNode)] = []) throws -> ConfigNode {
        var node = try PresetLibrary.standard.node(for: nameOrPath)
        for text in overrides { try node.apply(override: text) }
        for (key, value) in settings {
            try node.set(path: key.split(separator: ".", omittingEmptySubsequences: false).map(String.init), to: value, fullKey: key)
        }
        return node
    }
}

/// Where presets are found by name: the folders in `SEGUE_PRESETS` (separated by ':'), then
/// `share/segue/Presets` beside the executable's folder, then a `Presets` folder in the
/// executable's folder or any folder above it (a build inside the source tree), then
/// `./Presets`.
public struct PresetLibrary: Sendable {
    public var folders: [String]

    public init(folders: [String]) { self.folders = folders }

    public static var standard: PresetLibrary {
        var folders: [String] = []
        if let env = ProcessInfo.processInfo.environment["SEGUE_PRESETS"] {
            folders += env.split(separator: ":").map(String.init)
        }
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        folders.append(dir.deletingLastPathComponent().appendingPathComponent("share/segue/Presets").path)
        for _ in 0..<6 {
            folders.append(dir.appendingPathComponent("Presets").path)
            dir = dir.deletingLastPathComponent()
        }
        folders.append(FileManager.default.currentDirectoryPath + "/Presets")
        var seen = Set<String>()
        return PresetLibrary(folders: folders.filter { seen.insert($0).inserted })
    }

    /// The names of the presets in the folders, each once, sorted.
    public var names: [String] {
        var names = Set<String>()
        for folder in folders {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where file.hasSuffix(".yaml") {
                names.insert(String(file.dropLast(5)))
            }
        }
        return names.sorted()
    }

    /// The file a name or path refers to.
    public func path(for nameOrPath: String) throws -> String {
        if PresetLibrary.looksLikePath(nameOrPath) {
            guard FileManager.default.fileExists(atPath: nameOrPath) else {
                throw PresetError.unreadable(nameOrPath, reason: "no such file")
            }
            return nameOrPath
        }
        for folder in folders {
            let candidate = folder + "/" + nameOrPath + ".yaml"
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw PresetError.presetNotFound(nameOrPath, searched: folders.filter { FileManager.default.fileExists(atPath: $0) }, available: names)
    }

    /// The largest preset file read, in bytes.
    public static let maxFileSize = 1 << 20

    /// The configuration tree of a preset, with what it `extends:` merged beneath it.
    public func node(for nameOrPath: String) throws -> ConfigNode {
        try node(for: nameOrPath, relativeTo: nil, chain: [])
    }

    private func node(for nameOrPath: String, relativeTo folder: String?, chain: [String]) throws -> ConfigNode {
        var reference = nameOrPath
        if let folder, PresetLibrary.looksLikePath(nameOrPath), !nameOrPath.hasPrefix("/") {
            reference = folder + "/" + nameOrPath
        }
        let path = try path(for: reference)
        let canonical = URL(fileURLWithPath: path).standardizedFileURL.path
        guard !chain.contains(canonical) else {
            throw PresetError.invalid(key: "extends", origin: .file(chain.last ?? path, line: 1), value: "'\(nameOrPath)'",
                                      expected: "a preset that does not extend itself (the chain is \((chain + [canonical]).joined(separator: " -> ")))")
        }
        guard chain.count < 16 else {
            throw PresetError.invalid(key: "extends", origin: .file(path, line: 1), value: "a chain of \(chain.count + 1) presets", expected: "at most 16")
        }
        let text: String
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= PresetLibrary.maxFileSize else {
                throw PresetError.unreadable(path, reason: "it is \(size) bytes, over the limit of \(PresetLibrary.maxFileSize) for a preset")
            }
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch let error as PresetError {
            throw error
        } catch {
            throw PresetError.unreadable(path, reason: "not a readable UTF-8 text file")
        }
        let name = PresetLibrary.looksLikePath(nameOrPath) ? reference : (path as NSString).lastPathComponent
        var node = try ConfigNode.parse(yaml: text, name: "preset \(name)")
        guard let base = node["extends"] else { return node }
        guard case let .scalar(baseName, _) = base.value, !baseName.isEmpty else {
            throw PresetError.wrongType(key: "extends", origin: base.origin, found: ConfigReader.kind(of: base), expected: "a preset's name or file")
        }
        node.remove("extends")
        let baseNode = try self.node(for: baseName, relativeTo: (path as NSString).deletingLastPathComponent, chain: chain + [canonical])
        return node.merged(over: baseNode)
    }

    static func looksLikePath(_ text: String) -> Bool {
        text.contains("/") || text.hasSuffix(".yaml") || text.hasSuffix(".yml")
    }

    /// Each shipped preset's name and description.
    public func catalog() -> [(name: String, description: String)] {
        names.map { name in
            let description = (try? Preset(node(for: name)).description) ?? "(does not load: run 'segue presets show \(name)')"
            return (name, description)
        }
    }
}
