import ArgumentParser
import Foundation
import Segue

/// A batch whose run ended with this exit code (some jobs failed, or it was interrupted).
struct BatchFailed: Error {
    let code: Int32
}

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs the jobs of a manifest; a failed job does not stop the others.",
        discussion: """
            A manifest is YAML: 'jobs:' lists jobs, each with 'preset' (default \
            stories-cube), 'set' (a map of the dotted keys --set takes), 'inputs', 'output', and \
            optionally 'name' and 'format'. Paths are relative to the manifest. The options \
            --set, --size, --fps, --codec and --threads apply to every job, the job's own 'set' \
            winning. At the end a summary table goes to stdout and the exit code is 1 if any \
            job failed. --shard K/N runs every N-th job from the K-th, so N machines can split \
            a manifest with no coordinator.
            """
    )

    @Argument(help: ArgumentHelp("The manifest (YAML).", valueName: "MANIFEST"))
    var manifest: String

    @Option(help: "Jobs run at once.")
    var jobs = 1

    @Option(help: ArgumentHelp("Writes the summary as JSON to this file.", valueName: "FILE"))
    var report: String?

    @Option(help: ArgumentHelp("Runs only shard K of N (1-based), for example 2/3.", valueName: "K/N"))
    var shard: String?

    @OptionGroup var options: ExportOptions

    func validate() throws {
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs \(jobs): expected 1...64.") }
        if let shard, Batch.parseShard(shard) == nil {
            throw ValidationError("--shard '\(shard)': expected K/N with 1 <= K <= N, for example 2/3.")
        }
    }

    static func parseShard(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else { return nil }
        return (k, n)
    }

    func run() throws {
        let loaded = try Manifest.load(manifest)
        let entries = shard.flatMap(Batch.parseShard).map { loaded.shard($0.0, of: $0.1) } ?? loaded.entries
        Interruption.shared.install()
        let mode = options.effectiveProgress
        var settings = BatchSettings(overrides: options.presetOverrides, threads: options.threads, overwrite: options.force, parallel: jobs)
        settings.limits = options.limits
        let reporters = Dictionary(uniqueKeysWithValues: entries.map { ($0.number, ProgressReporter(mode: jobs == 1 ? mode : (mode == .json ? .json : .none), job: $0.name)) })
        let lock = NSLock()
        let outcomes = BatchRunner.run(entries, settings: settings, cancellation: Interruption.shared.cancellation) { entry, progress in
            lock.lock()
            defer { lock.unlock() }
            reporters[entry.number]?.report(progress)
            if progress.framesDone == progress.frameCount { reporters[entry.number]?.finish() }
        }

        if let report {
            let document = Report(manifest: manifest, shard: shard, succeeded: outcomes.filter { $0.status == "ok" }.count,
                                  failed: outcomes.filter { $0.status != "ok" }.count, jobs: outcomes)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                try encoder.encode(document).write(to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                throw ExportError.output(path: report, reason: "cannot write the report: \(error.localizedDescription)")
            }
        }
        if !options.quiet { print(Batch.table(outcomes), terminator: "") }
        for outcome in outcomes where outcome.status == "failed" {
            FileHandle.standardError.write(Data("segue: error: job \(outcome.job) (\(outcome.name)) failed: \(outcome.reason ?? "")\n".utf8))
        }
        if let signal = Interruption.shared.signal { throw BatchFailed(code: 128 + signal) }
        if outcomes.contains(where: { $0.status != "ok" }) { throw BatchFailed(code: 1) }
    }

    struct Report: Codable {
        var manifest: String
        var shard: String?
        var succeeded: Int
        var failed: Int
        var jobs: [JobOutcome]
    }

    /// The summary: one row per job with its output, frames, seconds, status and reason.
    static func table(_ outcomes: [JobOutcome]) -> String {
        let rows = [["job", "output", "frames", "seconds", "status", "reason"]] + outcomes.map {
            ["\($0.job) \($0.name)", $0.output, $0.frames.map(String.init) ?? "-", $0.seconds.map { String(format: "%.2f", $0) } ?? "-",
             $0.status, $0.reason ?? ""]
        }
        let widths = (0..<5).map { c in rows.map { $0[c].count }.max()! }
        return rows.map { row in
            (0..<5).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[5]
        }.map { $0.trimmingCharacters(in: .whitespaces) + "\n" }.joined()
    }
}
