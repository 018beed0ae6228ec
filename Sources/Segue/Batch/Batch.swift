import Dispatch
import Foundation

/// A batch of exports: a YAML manifest whose `jobs` each name a `preset`, a `set` of preset
/// keys (dotted, as `--set` takes them, or nested), `inputs` and an `output`; paths are
/// relative to the manifest's folder.
public struct Manifest: Sendable {
    public struct Entry: Sendable {
        /// 1-based position in the manifest.
        public var number: Int
        public var name: String
        public var preset: String
        public var settings: [(key: String, value: ConfigNode)]
        public var inputs: [String]
        public var output: String
        public var format: OutputFormat?
        /// Where the job is written in the manifest.
        public var origin: ConfigOrigin
        /// The job's slides, when it gives `slides:` (a story) instead of `inputs:`.
        public var slides: [StorySlide]?
        /// Voice tracks, as a story's `voice:` gives them.
        public var voices: [Voice] = []
        /// A whole story: its slides, text, captions and voices, its keys laid under the
        /// batch's options. Held by reference: a story is hundreds of bytes, a plan's entries
        /// a million.
        public var story: Story? {
            get { storyStorage?.value }
            set { storyStorage = newValue.map(Shared.init) }
        }
        private var storyStorage: Shared<Story>?
        /// A template's row, made into its story when the entry is planned (not when the rows
        /// are read: the stories of a million rows are never held at once).
        public var row: TemplateRow?
        /// What is wrong with the job as written (with the manifest's lines); a job with
        /// problems is listed, never run.
        public var problems: [String] = []

        init(number: Int, name: String, preset: String, settings: [(key: String, value: ConfigNode)], inputs: [String], output: String,
             format: OutputFormat? = nil, origin: ConfigOrigin, slides: [StorySlide]? = nil, voices: [Voice] = [], row: TemplateRow? = nil,
             problems: [String] = []) {
            self.number = number
            self.name = name
            self.preset = preset
            self.settings = settings
            self.inputs = inputs
            self.output = output
            self.format = format
            self.origin = origin
            self.slides = slides
            self.voices = voices
            self.row = row
            self.problems = problems
        }

        /// The entry as a plan keeps it once its job is made: what names it in a summary
        /// (number, name, output, origin), without the story, slides, keys and voices its
        /// job now holds (a plan of a hundred thousand rows keeps a few hundred bytes each).
        public var planned: Entry {
            var entry = self
            entry.settings = []
            entry.slides = nil
            entry.voices = []
            entry.story = nil
            entry.row = nil
            entry.inputs = []
            return entry
        }
    }

    public var path: String
    public var entries: [Entry]

    /// The largest manifest read, in bytes (16 MiB: about 100,000 jobs of two photos and an
    /// output). A manifest is YAML, held whole while it is read: a bigger batch is a template
    /// and its rows (CSV or JSON Lines), or several manifests.
    public static let maxFileSize = 16 << 20

    /// Reads a manifest. Every job is read even when an earlier one is wrong; each entry
    /// carries the problems found in it (`problems`, all of them), so that a dry run can list
    /// every job. Only a manifest that is no list of jobs at all is thrown.
    public static func load(_ path: String) throws -> Manifest {
        let text = try Paths.text(of: path, limit: Manifest.maxFileSize, kind: "manifest")
        let root = try ConfigNode.parse(yaml: text, name: "manifest \(path)")
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { Paths.resolve(p, in: folder) }

        var top = try ConfigReader(root)
        let jobsNode = top.raw("jobs", type: "[job]", "The jobs, each a mapping of preset, set, inputs and output.")
        try top.finish()
        guard let jobsNode else {
            throw PresetError.missingKey(key: "jobs", origin: root.origin, expected: "a list of jobs, each with preset, set, inputs and output")
        }
        guard case let .sequence(items) = jobsNode.value, !items.isEmpty else {
            throw PresetError.wrongType(key: "jobs", origin: jobsNode.origin, found: ConfigReader.kind(of: jobsNode), expected: "a list of one or more jobs")
        }
        var entries: [Entry] = []
        for (i, item) in items.enumerated() {
            var found: [String] = []
            func attempt<T>(_ read: () throws -> T) -> T? {
                do { return try read() } catch let error as PresetError { found += error.all.map(\.description); return nil } catch { found.append("\(error)"); return nil }
            }
            guard var r = attempt({ try ConfigReader(item, path: "jobs[\(i + 1)]") }) else {
                entries.append(Entry(number: i + 1, name: "job \(i + 1)", preset: "", settings: [], inputs: [], output: "", origin: item.origin, problems: found))
                continue
            }
            let name = attempt { try r.text("name", default: "", "A name for the job in the summary; default: the output's file name.") }
            let preset = attempt { try r.text("preset", default: PresetLibrary.defaultPreset, "A preset's name or a preset file (relative to the manifest).") }
            var settings = SettingFiles.resolving(attempt { try r.settings("set", "Preset keys for this job, dotted or nested, as --set takes them.") } ?? [], resolve)
            if let audio = r.raw("audio", type: "audio", "The job's soundtrack: a file (relative to the manifest), 'silence', or a mapping with file, start, volume, fadeIn, fadeOut, loop.") {
                settings.append((key: "audio", value: ConfigNode.audio(audio, resolve: resolve)))
            }
            if let target = r.raw("target", type: "text", "The platform the job's video is for, as the preset key target.") {
                settings.insert((key: "target", value: target), at: 0)
            }
            let voiceNode = r.raw("voice", type: "[voice]", "Voice tracks on the job's timeline, as a story's voice: gives them (files relative to the manifest).")
            let voices = voiceNode.flatMap { node in attempt { try Voice.list(Story.resolvingVoiceFiles(node, resolve), key: "jobs[\(i + 1)].voice") } }
            let slidesNode = r.raw("slides", type: "[slide]", "The slides of a story, each with an image and optionally hold, motion, transition; instead of inputs.")
            let slides = slidesNode.flatMap { node in attempt { try StorySlide.list(node, key: "jobs[\(i + 1)].slides", resolve: resolve) } }
            var inputs = attempt { try r.texts("inputs", expected: "one or more image paths, like [a.jpg, b.png]", "The images, in order.") }
            if slidesNode != nil {
                if case .some(.some) = inputs {
                    found.append("\(PresetError.invalid(key: "jobs[\(i + 1)].inputs", origin: item.origin, value: "given with slides", expected: "inputs or slides, not both"))")
                }
                inputs = .some(slides.map { $0.map(\.image) })
            }
            let output = attempt { try r.requiredText("output", expected: "the output's path", "Where the job writes.") }
            var format: OutputFormat?
            if let node = r.raw("format", type: "text", "The output format; default: from the output's name.") {
                format = attempt {
                    let text = try ConfigReader.string(node, key: "jobs[\(i + 1)].format")
                    guard let format = OutputFormat(rawValue: text) else {
                        let hint = suggestion(for: text, among: OutputFormat.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
                        throw PresetError.invalid(key: "jobs[\(i + 1)].format", origin: node.origin, value: "'\(text)'",
                                                  expected: "one of: " + OutputFormat.allCases.map(\.rawValue).joined(separator: ", ") + hint)
                    }
                    return format
                }
            }
            _ = attempt { try r.finish() }
            if case .some(nil) = inputs, slidesNode == nil {
                found.append("\(PresetError.missingKey(key: "jobs[\(i + 1)].inputs", origin: item.origin, expected: "a list of one or more image paths, or slides"))")
            }
            guard found.isEmpty, let name, let preset, let inputs = inputs ?? nil, let output else {
                let shown = (name ?? "").isEmpty ? (output.map { ($0 as NSString).lastPathComponent } ?? "job \(i + 1)") : name!
                entries.append(Entry(number: i + 1, name: shown, preset: preset ?? "", settings: [], inputs: [],
                                     output: output.map(resolve) ?? "", origin: item.origin, problems: found))
                continue
            }
            entries.append(Entry(number: i + 1, name: name.isEmpty ? (output as NSString).lastPathComponent : name,
                                 preset: PresetLibrary.looksLikePath(preset) ? resolve(preset) : preset,
                                 settings: settings, inputs: slidesNode == nil ? inputs.map(resolve) : inputs, output: resolve(output),
                                 format: format, origin: item.origin, slides: slides, voices: voices ?? []))
        }
        checkOutputs(&entries)
        return Manifest(path: path, entries: entries)
    }

    /// Adds to the entries' problems any output that two jobs write, or that one job reads.
    static func checkOutputs(_ entries: inout [Entry]) {
        Paths.remembering {
            var writers: [String: Int] = [:]
            // By index, so that the entries are changed in place, not copied.
            for k in entries.indices where !entries[k].output.isEmpty {
                let canonical = Paths.canonical(entries[k].output)
                if let first = writers[canonical] {
                    entries[k].problems.append("\(entries[k].origin): job \(entries[k].number) writes '\(entries[k].output)', as job \(first) does (expected a different output for every job)")
                }
                writers[canonical] = writers[canonical] ?? entries[k].number
            }
            for k in entries.indices {
                for input in entries[k].inputs {
                    if let writer = writers[Paths.canonical(input)], writer != entries[k].number {
                        entries[k].problems.append("\(entries[k].origin): job \(entries[k].number) reads '\(input)', which job \(writer) writes (expected inputs no job writes)")
                    }
                }
            }
        }
    }

    /// Every problem of every job, in the manifest's order.
    public var problems: [String] { entries.flatMap(\.problems) }

    /// The entries of `shard`: every n-th entry from the k-th, so shards split any manifest
    /// the same way on every machine, with no coordinator.
    public func entries(of shard: Shard) -> [Entry] {
        entries.filter { ($0.number - 1) % shard.count == shard.index }
    }
}

/// Problems found in a manifest, or in its jobs, before any job ran.
public struct ManifestError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var problems: [String]

    public init(path: String, problems: [String]) {
        self.path = path
        self.problems = problems
    }

    public var description: String {
        if problems.count == 1 { return problems[0] }
        return "manifest \(path): \(problems.count) problems; no job was run:\n" + problems.map { "  " + $0 }.joined(separator: "\n")
    }
}

/// What a batch did: each job's outcome, and the inputs its jobs shared.
public struct BatchRun: Sendable {
    public var outcomes: [JobOutcome]
    /// Each picture several jobs drew and each sound several played, with how many times it
    /// was decoded (once, when sharing worked).
    public var shared: [SharedInput]
}

/// What became of one job of a batch.
public struct JobOutcome: Codable, Sendable {
    public var job: Int
    public var name: String
    public var output: String
    public var frames: Int?
    public var seconds: Double?
    public var status: Status
    public var reason: String?
    /// True when the job's storyboard (its first pictures decoded, its text laid out) was made
    /// while the job before it ran; absent otherwise.
    public var readiedAhead: Bool?

    /// What became of a job, as the summary writes it.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Rendered.
        case ok
        /// Kept: `--resume` found it made from the same fingerprint.
        case skipped
        case failed
        case cancelled
        /// With `--dry-run`: would be rendered.
        case render
        /// With `--dry-run`: would be kept (up to date).
        case skip
        /// With `--dry-run`: has problems; would not run.
        case invalid

        /// Done as asked: rendered, or kept up to date.
        public var succeeded: Bool { self == .ok || self == .skipped }
    }

    public init(job: Int, name: String, output: String, frames: Int? = nil, seconds: Double? = nil, status: Status, reason: String? = nil) {
        self.job = job
        self.name = name
        self.output = output
        self.frames = frames
        self.seconds = seconds
        self.status = status
        self.reason = reason
    }
}
