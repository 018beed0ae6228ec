import Dispatch
import Foundation

/// A batch of exports: a YAML manifest whose `jobs` each name a `preset`, a `set` of preset
/// keys (the dotted keys `--set` takes), `inputs` and an `output`; paths are relative to the
/// manifest's folder.
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
    }

    public var path: String
    public var entries: [Entry]

    /// The largest manifest read, in bytes.
    public static let maxFileSize = 16 << 20

    public static func load(_ path: String) throws -> Manifest {
        guard FileManager.default.fileExists(atPath: path) else { throw PresetError.unreadable(path, reason: "no such file") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.intValue ?? 0
        guard size <= Manifest.maxFileSize else {
            throw PresetError.unreadable(path, reason: "it is \(size) bytes, over the limit of \(Manifest.maxFileSize) for a manifest")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw PresetError.unreadable(path, reason: "not a readable UTF-8 text file")
        }
        let root = try ConfigNode.parse(yaml: text, name: "manifest \(path)")
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { p.hasPrefix("/") || folder.isEmpty ? p : Manifest.normalized(folder + "/" + p) }

        guard case let .mapping(top) = root.value, let jobsNode = root["jobs"] else {
            throw PresetError.missingKey(key: "jobs", origin: root.origin, expected: "a list of jobs, each with preset, set, inputs and output")
        }
        for pair in top where pair.key != "jobs" {
            throw PresetError.unknownKey(key: pair.key, origin: pair.value.origin, known: ["jobs"])
        }
        guard case let .sequence(items) = jobsNode.value, !items.isEmpty else {
            throw PresetError.wrongType(key: "jobs", origin: jobsNode.origin, found: ConfigReader.kind(of: jobsNode), expected: "a list of one or more jobs")
        }
        var entries: [Entry] = []
        for (i, item) in items.enumerated() {
            let key = "jobs[\(i + 1)]"
            guard case let .mapping(pairs) = item.value else {
                throw PresetError.wrongType(key: key, origin: item.origin, found: ConfigReader.kind(of: item), expected: "a mapping with preset, set, inputs and output")
            }
            let known = ["name", "preset", "set", "inputs", "output", "format"]
            for pair in pairs where !known.contains(pair.key) {
                throw PresetError.unknownKey(key: "\(key).\(pair.key)", origin: pair.value.origin, known: known)
            }
            func text(_ name: String) throws -> String? {
                try item[name].map { try ConfigReader.string($0, key: "\(key).\(name)") }
            }
            guard let output = try text("output"), !output.isEmpty else {
                throw PresetError.missingKey(key: "\(key).output", origin: item.origin, expected: "the output's path")
            }
            guard let inputsNode = item["inputs"], case let .sequence(inputItems) = inputsNode.value, !inputItems.isEmpty else {
                throw PresetError.missingKey(key: "\(key).inputs", origin: item.origin, expected: "a list of one or more image paths")
            }
            let inputs = try inputItems.map { resolve(try ConfigReader.string($0, key: "\(key).inputs")) }
            var settings: [(key: String, value: ConfigNode)] = []
            if let set = item["set"] {
                guard case let .mapping(sets) = set.value else {
                    throw PresetError.wrongType(key: "\(key).set", origin: set.origin, found: ConfigReader.kind(of: set), expected: "a mapping of dotted preset keys to values")
                }
                settings = sets.map { ($0.key, $0.value) }
            }
            var format: OutputFormat?
            if let f = try text("format") {
                guard let parsed = OutputFormat(rawValue: f) else {
                    throw PresetError.invalid(key: "\(key).format", origin: item["format"]!.origin, value: "'\(f)'",
                                              expected: "one of: " + OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))
                }
                format = parsed
            }
            let preset = try text("preset") ?? "stories-cube"
            entries.append(Entry(number: i + 1, name: try text("name") ?? (output as NSString).lastPathComponent,
                                 preset: PresetLibrary.looksLikePath(preset) ? resolve(preset) : preset,
                                 settings: settings, inputs: inputs, output: resolve(output), format: format))
        }
        var seen: [String: Int] = [:]
        for entry in entries {
            let canonical = URL(fileURLWithPath: entry.output).standardizedFileURL.path
            if let first = seen[canonical] {
                throw PresetError.invalid(key: "jobs[\(entry.number)].output", origin: .file("manifest \(path)", line: 1),
                                          value: "'\(entry.output)', as job \(first) writes", expected: "a different output for every job")
            }
            seen[canonical] = entry.number
        }
        return Manifest(path: path, entries: entries)
    }

    /// A path with its "." and "name/.." steps removed.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != "..", !last.isEmpty { parts.removeLast(); continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return joined.isEmpty ? "." : joined
    }

    /// The entries of shard `k` of `n` (1-based): every n-th entry from the k-th, so shards
    /// split any manifest the same way on every machine, with no coordinator.
    public func shard(_ k: Int, of n: Int) -> [Entry] {
        entries.filter { ($0.number - 1) % n == k - 1 }
    }
}

/// What became of one job of a batch.
public struct JobOutcome: Codable, Sendable {
    public var job: Int
    public var name: String
    public var output: String
    public var frames: Int?
    public var seconds: Double?
    public var status: String
    public var reason: String?
}

/// Settings a whole batch shares.
public struct BatchSettings: Sendable {
    /// Overrides every job gets before its own `set` (`KEY=VALUE`).
    public var overrides: [String] = []
    public var threads: Int?
    public var overwrite = false
    public var limits = Limits()
    /// Jobs run at once.
    public var parallel = 1

    public init(overrides: [String] = [], threads: Int? = nil, overwrite: Bool = false, parallel: Int = 1) {
        self.overrides = overrides
        self.threads = threads
        self.overwrite = overwrite
        self.parallel = parallel
    }
}

public enum BatchRunner {
    /// Runs the entries, `parallel` at a time; a failed job does not stop the others.
    /// `progress` may be called from several threads at once when jobs run in parallel.
    public static func run(_ entries: [Manifest.Entry], settings: BatchSettings, cancellation: Cancellation? = nil,
                           progress: (@Sendable (Manifest.Entry, ExportProgress) -> Void)? = nil) -> [JobOutcome] {
        (try? parallelMap(entries, threads: max(1, settings.parallel)) { entry in
            runOne(entry, settings: settings, cancellation: cancellation, progress: progress)
        }) ?? []
    }

    static func runOne(_ entry: Manifest.Entry, settings: BatchSettings, cancellation: Cancellation?,
                       progress: (@Sendable (Manifest.Entry, ExportProgress) -> Void)?) -> JobOutcome {
        var outcome = JobOutcome(job: entry.number, name: entry.name, output: entry.output, status: "failed")
        if cancellation?.isCancelled == true {
            outcome.status = "cancelled"
            return outcome
        }
        do {
            let preset = try Preset.load(entry.preset, overrides: settings.overrides, settings: entry.settings)
            var job = try Job(preset: preset, inputs: entry.inputs, output: entry.output, format: entry.format,
                              limits: settings.limits, overwrite: settings.overwrite)
            if let threads = settings.threads { job.threads = threads }
            let result = try Exporter.run(job, cancellation: cancellation) { progress?(entry, $0) }
            outcome.frames = result.frameCount
            outcome.seconds = (result.seconds * 100).rounded() / 100
            outcome.status = "ok"
        } catch ExportError.cancelled {
            outcome.status = "cancelled"
        } catch {
            outcome.reason = "\(error)"
        }
        return outcome
    }
}
