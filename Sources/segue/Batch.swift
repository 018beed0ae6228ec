import ArgumentParser
import Foundation
import Segue
import Synchronization

/// A batch whose run ended with this exit code (some jobs failed, or it was interrupted).
struct BatchFailed: Error {
    let code: Int32
}

/// `--shard`: a fixed part of the manifest, or the part a cluster engine's array task is.
enum ShardOption: Equatable {
    case fixed(Shard)
    case auto
    /// `--chunk sound`: the sound chunk.
    case sound

    init(parsing text: String) throws {
        self = text == "auto" ? .auto : .fixed(try Shard.parse(text))
    }

    /// `--chunk K/N|sound|auto`.
    static func chunk(parsing text: String) throws -> ShardOption {
        text == "auto" ? .auto : text == "sound" ? .sound : .fixed(try Shard.parse(text, option: "--chunk"))
    }

    /// The shard asked for: the fixed one, or the one the cluster engine's variables say
    /// (`count` where the engine does not say how many; `option` names the option in errors).
    func part(count: Int?, option: String) throws -> Shard {
        switch self {
        case let .fixed(part): return part
        case .auto: return try Shard.automatic(count: count, option: option)
        case .sound: throw ValidationError("\(option) sound: expected K/N or auto.")
        }
    }
}

struct Batch: ParsableCommand {
    /// `--jobs N|auto`.
    static func jobsAtOnce(parsing text: String) throws -> JobsAtOnce {
        guard let jobs = JobsAtOnce(text) else { throw ValidationError("--jobs \(text): expected a number from 1 to 64, or auto.") }
        return jobs
    }

    static let configuration = CommandConfiguration(
        abstract: "Runs the jobs of a manifest; a failed job does not stop the others.",
        discussion: """
            A manifest is YAML: 'jobs:' lists jobs, each with 'preset' (default \
            stories-cube), 'set' (preset keys, dotted as --set takes them or nested), 'inputs', \
            'output', and optionally 'name' and 'format'. Paths are relative to the manifest. \
            Every job is checked before the first one runs (its preset and keys, its inputs, \
            its output); if any is wrong, all problems are reported with their lines and \
            nothing runs (exit 2). The options --set, --size, --fps, --codec and --threads \
            apply to every job, the job's own 'set' winning. At the end a summary table goes \
            to stdout and the exit code is 1 if any job failed.

            --shard K/N runs every N-th job from the K-th, so N machines can split a manifest \
            with no coordinator; --shard auto reads the part from a Slurm array, a Kubernetes \
            Indexed Job or an AWS Batch array. --resume keeps outputs already made from the \
            same job (its preset, keys, inputs' content and format), so a retried task only \
            does what is left.

            --template STORY --data ROWS -o 'out/{{id}}.mp4' renders one video per row of a CSV \
            file (its header row names the variables) or a JSON Lines file: the story with the \
            row's values in its {{variables}}, written to the output name with the row's values \
            in it. Every row is checked first (a variable without a value, a missing file, an \
            output two rows write or that leaves the output's folder), each problem naming its \
            line in the data file; a column nothing uses is a warning.
            """
    )

    @Argument(help: ArgumentHelp("The manifest (YAML); or --template, --data and -o instead.", valueName: "MANIFEST"))
    var manifest: String?

    @Option(help: ArgumentHelp("A story with {{variables}}, rendered once per row of --data.", valueName: "STORY"))
    var template: String?

    @Option(help: ArgumentHelp("The rows for --template: a CSV file with a header row of variable names, or JSON Lines (.jsonl).", valueName: "FILE"))
    var data: String?

    @Option(name: .short, help: ArgumentHelp("With --template: each row's output, its {{variables}} filled from the row (out/{{id}}.mp4); it must stay inside its folder.", valueName: "PATTERN"))
    var output: String?

    @Option(help: ArgumentHelp("Jobs run at once: auto (the default: one for each 1.5 CPUs, as many as half the available memory holds), or a number from 1 to 64.", valueName: "N|auto"),
            completion: .list(["auto"]), transform: Batch.jobsAtOnce(parsing:))
    var jobs: JobsAtOnce = .auto

    @Option(help: ArgumentHelp("Writes the summary as JSON to this file (its folder is created).", valueName: "FILE"))
    var report: String?

    @Option(help: ArgumentHelp("Runs only shard K of N (1-based, for example 2/3), or the shard of this array task (auto: Slurm, Kubernetes Indexed Jobs, AWS Batch).", valueName: "K/N|auto"),
            completion: .list(["auto"]), transform: ShardOption.init(parsing:))
    var shard: ShardOption?

    @Option(help: ArgumentHelp("How many shards there are, for --shard auto where the engine does not say (Kubernetes: the job's completions).", valueName: "N"))
    var shardCount: Int?

    @Flag(help: "Prints what each job would do (render, skip or invalid) and writes nothing.")
    var dryRun = false

    @OptionGroup var options: ExportOptions

    func validate() throws {
        if let shardCount, shardCount < 1 { throw ValidationError("--shard-count \(shardCount): expected 1 or more.") }
        if shardCount != nil, shard != .auto { throw ValidationError("--shard-count goes with --shard auto.") }
        if template != nil || data != nil || output != nil {
            guard manifest == nil else { throw ValidationError("Give a manifest, or --template with --data and -o, not both.") }
            guard template != nil, data != nil, output != nil else { throw ValidationError("--template, --data and -o go together: the story, its rows, and each row's output name.") }
        } else if manifest == nil {
            throw ValidationError("Give a manifest, or --template STORY --data ROWS -o PATTERN.")
        }
    }

    func run() throws {
        var loaded: Manifest
        if let template, let data, let output {
            let rows = Manifest.rows(of: try StoryTemplate.load(template, library: try options.library.library()), data: try TemplateData.load(data), output: output)
            loaded = rows.manifest
            if !options.quiet { for warning in rows.warnings { FileHandle.standardError.write(Data("segue: warning: \(warning)\n".utf8)) } }
        } else {
            loaded = try Manifest.load(manifest!)
        }
        let manifest = loaded.path
        let manifestProblems = loaded.problems
        let shardUsed = try shard?.part(count: shardCount, option: "--shard")
        var entries = shardUsed.map { loaded.entries(of: $0) } ?? loaded.entries
        loaded.entries = []
        var settings = BatchSettings(overrides: options.presetOverrides, threads: options.threads, overwrite: options.force,
                                     resume: options.resume)
        settings.limits = options.limits
        settings.library = try options.library.library()

        if dryRun {
            // Each entry's line as it is planned: its job is not kept, nor, quiet, its line.
            var rows: [JobOutcome] = []
            if !options.quiet { rows.reserveCapacity(entries.count) }
            var invalid = false
            BatchRunner.plan(consuming: &entries, settings: settings) { planned in
                let row: JobOutcome
                switch planned {
                case let .job(job):
                    row = JobOutcome(job: job.entry.number, name: job.entry.name, output: job.entry.output, status: job.upToDate ? .skip : .render,
                                     reason: job.upToDate ? "up to date (\(job.fingerprint ?? ""))" : nil)
                case let .problems(entry, found):
                    invalid = true
                    row = JobOutcome(job: entry.number, name: entry.name, output: entry.output, status: .invalid, reason: found.joined(separator: "; "))
                }
                if !options.quiet { rows.append(row) }
            }
            if !options.quiet { Batch.printTable(rows) }
            if invalid || !manifestProblems.isEmpty { throw BatchFailed(code: 2) }
            return
        }
        // From here on an entry is its number, name and output: its story is its job's now.
        var prepared = BatchRunner.prepare(consuming: &entries, settings: settings)
        let cpus = CPUBudget.forThisProcess
        settings.parallel = jobs.resolved(for: prepared.jobs, cpus: cpus)
        BatchRunner.shareCPUs(&prepared.jobs, parallel: settings.parallel, cpus: cpus, threadsGiven: options.threads != nil)

        // A manifest with a wrong job runs nothing, on every shard.
        guard manifestProblems.isEmpty else { throw ManifestError(path: manifest, problems: manifestProblems) }
        guard prepared.problems.isEmpty else {
            throw ManifestError(path: manifest, problems: prepared.problems.flatMap(\.problems))
        }
        if let report { try Batch.makeFolder(for: report) }
        if !options.quiet {
            for job in prepared.jobs where !job.upToDate {
                for warning in job.job.warnings { FileHandle.standardError.write(Data("segue: warning: job \(job.entry.number) (\(job.entry.name)): \(warning)\n".utf8)) }
            }
        }

        Interruption.shared.install()
        let reporter = BatchProgress(mode: options.effectiveProgress, jobs: prepared.jobs.map(\.entry))
        let run = BatchRunner.run(prepared.jobs, settings: settings, cancellation: Interruption.shared.cancellation) { entry, progress in
            reporter.report(entry, progress)
        }
        reporter.finish()
        let outcomes = run.outcomes

        if let report {
            let document = Report(manifest: manifest, shard: shardUsed?.description, jobsAtOnce: settings.parallel,
                                  succeeded: outcomes.filter { $0.status == .ok }.count,
                                  skipped: outcomes.filter { $0.status == .skipped }.count,
                                  failed: outcomes.filter { !$0.status.succeeded }.count, jobs: outcomes, shared: run.shared)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                try encoder.encode(document).write(to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                throw ExportError.output(path: report, reason: "cannot write the report: \(error.localizedDescription)")
            }
        }
        if !options.quiet { Batch.printTable(outcomes) }
        for outcome in outcomes where outcome.status == .failed {
            FileHandle.standardError.write(Data("segue: error: job \(outcome.job) (\(outcome.name)) failed: \(outcome.reason ?? "")\n".utf8))
        }
        if let signal = Interruption.shared.signal { throw BatchFailed(code: 128 + signal) }
        if outcomes.contains(where: { !$0.status.succeeded }) { throw BatchFailed(code: 1) }
    }

    /// Creates the folder a file goes in, before any work, so a report is never lost at the end.
    static func makeFolder(for file: String) throws {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ExportError.output(path: file, reason: "cannot create the folder \(folder)")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw ExportError.output(path: file, reason: "the folder \(folder) is not writable")
        }
    }

    struct Report: Codable {
        var manifest: String
        var shard: String?
        /// Jobs run at once (`--jobs`, or what auto chose).
        var jobsAtOnce: Int
        var succeeded: Int
        var skipped: Int
        var failed: Int
        var jobs: [JobOutcome]
        /// The inputs several jobs shared, each with how many times it was decoded.
        var shared: [SharedInput]
    }

    /// Prints the summary to stdout, one line per job with its output, frames, seconds, status
    /// and reason, as each line is made: the table of a million jobs is never one text.
    static func printTable(_ outcomes: [JobOutcome]) {
        func cells(_ o: JobOutcome) -> [String] {
            ["\(o.job) \(o.name)", o.output, o.frames.map(String.init) ?? "-", o.seconds.map { String(format: "%.2f", $0) } ?? "-",
             o.status.rawValue, o.reason ?? ""]
        }
        let header = ["job", "output", "frames", "seconds", "status", "reason"]
        var widths = header.prefix(5).map(\.count)
        for outcome in outcomes {
            for (c, cell) in cells(outcome).prefix(5).enumerated() { widths[c] = max(widths[c], cell.count) }
        }
        for row in [header] + outcomes.lazy.map(cells) {
            let line = (0..<5).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[5]
            print(line.trimmingCharacters(in: .whitespaces))
        }
    }
}

/// A batch's progress on stderr: on a terminal one live line (jobs done, and the frames of
/// the job last heard from), with --progress json each job's lines (`ProgressReporter`) with
/// the batch's jobs done and jobs in all.
final class BatchProgress: Sendable {
    private struct State {
        var json: [Int: ProgressReporter]
        var done = 0
        var lastDraw: Double?
    }

    private let state: Locked<State>
    private let live: Bool
    private let total: Int
    private let start = DispatchTime.now()

    init(mode: ProgressMode, jobs: [Manifest.Entry]) {
        total = jobs.count
        live = mode == .auto && isatty(STDERR_FILENO) == 1
        let json = mode == .json ? Dictionary(uniqueKeysWithValues: jobs.map { ($0.number, ProgressReporter(mode: .json, job: $0.name)) }) : [:]
        state = Locked(State(json: json))
    }

    func report(_ entry: Manifest.Entry, _ p: ExportProgress) {
        state.withLock { state in
            if p.framesDone == p.frameCount { state.done += 1 }
            state.json[entry.number]?.report(p, extra: ",\"jobsDone\":\(state.done),\"jobs\":\(total)")
            let now = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            guard live, state.lastDraw.map({ now - $0 >= 0.1 }) ?? true || p.framesDone == p.frameCount else { return }
            state.lastDraw = now
            let fps = p.elapsed > 0 ? Double(p.framesDone) / p.elapsed : 0
            let line = String(format: "\r\u{1B}[2Kbatch: %d/%d jobs done; %@: %d/%d frames, %.1f fps", state.done, total, entry.name,
                              p.framesDone, p.frameCount, fps)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Ends the live line.
    func finish() {
        if live { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
