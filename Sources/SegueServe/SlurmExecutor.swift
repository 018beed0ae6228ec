package import Foundation
package import Segue

/// One render as a cluster's job runs it: a folder in the store (`tasks/ID/`) with the task
/// (`task.json`), the batch script, and what the job writes back: its progress
/// (`progress.json`, replaced four times a second) and its end (`result.json`). The store
/// and the inputs are on a filesystem every node shares, at the same paths.
package struct SlurmTask: Codable, Sendable {
    package var request: String
    package var inputs: [String]
    /// The folder of the files sent with the render, if any were.
    package var uploads: String?
    package var output: String
    package var maxPixelFrames: Int

    package struct Progress: Codable, Equatable { var status: String, done: Int, total: Int }

    /// Runs the task of `folder` (`segue serve-task FOLDER`, on the node Slurm gave it),
    /// with the job's CPUs; false when it did not end done.
    package static func run(folder: String, cancellation: Cancellation) throws -> Bool {
        let task = try JSONDecoder().decode(SlurmTask.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/task.json")))
        let environment = ProcessInfo.processInfo.environment
        let threads = environment["SLURM_CPUS_PER_TASK"].flatMap(Int.init) ?? environment["SLURM_CPUS_ON_NODE"].flatMap(Int.init)
            ?? ProcessInfo.processInfo.activeProcessorCount
        let outcome = RenderRun.perform(request: task.request, inputs: task.inputs, uploads: task.uploads, output: task.output, limits: Limits(maxPixelFrames: task.maxPixelFrames),
                                        threads: max(1, threads), cancellation: cancellation) { status, done, total in
            try? SlurmTask.write(Progress(status: status, done: done, total: total), to: folder + "/progress.json")
        }
        try SlurmTask.write(outcome, to: folder + "/result.json")
        if case .done = outcome { return true }
        return false
    }

    /// Writes `value` as JSON under a temporary name and renames it, so a reader sees it whole.
    static func write(_ value: some Encodable, to path: String) throws {
        try JSONEncoder().encode(value).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func read<T: Decodable>(_ type: T.Type, _ path: String) -> T? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).flatMap { try? JSONDecoder().decode(type, from: $0) }
    }
}

/// `--executor slurm`: every render is a job of the cluster this host submits to (`sbatch`),
/// at most `settings.workers` at once; the job runs `segue serve-task` on a node. One thread
/// submits and watches them every second: their states from `squeue` (and `sacct` where the
/// cluster keeps accounting), their progress and end from the files the job writes. A service
/// killed and started again finds its jobs by their ids in the store and watches them on.
final class SlurmExecutor: Executor {
    let store: JobStore
    let settings: ServeSettings
    private let signal = DispatchSemaphore(value: 0)
    /// States in which a job will not run again.
    static let over: Set<String> = ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED"]

    init(store: JobStore, settings: ServeSettings) {
        self.store = store
        self.settings = settings
    }

    var tasks: String { settings.store + "/tasks" }
    var logs: String { settings.store + "/logs" }

    func start() {
        _ = Workers.start { [self] in
            while true {
                tick()
                _ = signal.wait(timeout: .now() + 1)
            }
        }
    }

    func wake() { signal.signal() }

    func cancel(_ id: String) -> Bool {
        if let job = (try? store.render(id))??.executorJob { _ = try? SlurmExecutor.command("scancel", [job]) }
        return false
    }

    /// Submits what may start, then looks at every job of the service's.
    func tick() {
        var assigned = (try? store.assigned()) ?? []
        while assigned.count < settings.workers, let record = try? store.claim() {
            if let job = submit(record) {
                var running = record
                running.executorJob = job
                assigned.append(running)
            }
        }
        guard !assigned.isEmpty else { return sweep() }
        let states = SlurmExecutor.states(assigned.compactMap(\.executorJob))
        for record in assigned {
            guard let job = record.executorJob else { continue }
            let folder = "\(tasks)/\(record.id)"
            let state = states[job]
            // The end is read after the states were asked: a job over with no end written
            // ended before writing it.
            if let outcome = SlurmTask.read(RenderRun.Outcome.self, folder + "/result.json") {
                RenderRun.end(store, record, outcome)
            } else if state.map(SlurmExecutor.over.contains) ?? true {
                let how = state ?? "no longer known to the cluster"
                RenderRun.end(store, record, RenderRun.failure(.init(message: "Slurm job \(job) ended \(how) before the render did; its log is \(logs)/\(record.id).log")))
            } else if state == "RUNNING", let told = SlurmTask.read(SlurmTask.Progress.self, folder + "/progress.json") {
                if told.status != record.status || told.done != record.framesDone {
                    _ = try? store.progress(record.id, status: told.status, done: told.done, total: told.total)
                }
            }
        }
        sweep()
    }

    /// The task folders of renders that ended: removed, with the output of a render cancelled
    /// as its job was renaming it; a failed job's log is kept in `logs/ID.log`.
    func sweep() {
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let record = try? store.render(name), record.hasEnded else { continue }
            if record.status == "cancelled" { try? files.removeItem(atPath: ServeDocuments.outputPath(store, record)) }
            if record.status == "failed" {
                try? files.createDirectory(atPath: logs, withIntermediateDirectories: true)
                try? files.moveItem(atPath: "\(tasks)/\(name)/slurm.log", toPath: "\(logs)/\(name).log")
            }
            try? files.removeItem(atPath: "\(tasks)/\(name)")
        }
    }

    /// Writes the render's task and submits its job; its id, or nil (the render failed).
    private func submit(_ record: RenderRecord) -> String? {
        let folder = "\(tasks)/\(record.id)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let task = SlurmTask(request: record.request, inputs: settings.inputs, uploads: store.sentFiles(record.id),
                                 output: ServeDocuments.outputPath(store, record), maxPixelFrames: settings.maxPixelFrames)
            try SlurmTask.write(task, to: folder + "/task.json")
            try? FileManager.default.removeItem(atPath: folder + "/result.json")
            let script = "#!/bin/sh\nexec \(SlurmExecutor.quoted(settings.segue)) serve-task \(SlurmExecutor.quoted(folder))\n"
            try Data(script.utf8).write(to: URL(fileURLWithPath: folder + "/job.sh"))
            let answer = try SlurmExecutor.command("sbatch", ["--parsable", "--job-name", "segue-\(record.id)", "--output", folder + "/slurm.log",
                                                              "--chdir", folder] + settings.slurmOptions + [folder + "/job.sh"])
            guard answer.status == 0, let job = answer.output.split(separator: ";").first.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }),
                  !job.isEmpty, job.allSatisfy(\.isNumber) else {
                throw ServeProblem(status: 500, title: "sbatch failed", detail: "sbatch exited with \(answer.status): \(answer.errors.prefix(500))")
            }
            try store.assign(record.id, executorJob: job)
            return job
        } catch {
            let detail = (error as? ServeProblem)?.detail ?? "\(error)"
            RenderRun.end(store, record, RenderRun.failure(.init(message: "the render could not be submitted to Slurm: \(detail)")))
            return nil
        }
    }

    /// Each job's state (`RUNNING`, `PENDING`, `COMPLETED`, ...): squeue's for the jobs the
    /// controller still holds, sacct's for older ones where the cluster keeps accounting.
    static func states(_ jobs: [String]) -> [String: String] {
        var states: [String: String] = [:]
        func read(_ text: String) {
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count >= 2, jobs.contains(fields[0]) else { continue }
                states[fields[0]] = String(fields[1].split(separator: " ").first ?? "")
            }
        }
        // Only the service's jobs: squeue lists those of the ids it still knows (and fails when
        // it knows none of them).
        if let queued = try? command("squeue", ["-h", "-t", "all", "-o", "%i|%T", "-j", jobs.joined(separator: ",")]), queued.status == 0 { read(queued.output) }
        let missing = jobs.filter { states[$0] == nil }
        if !missing.isEmpty, let accounted = try? command("sacct", ["-n", "-P", "-X", "-o", "JobID,State", "-j", missing.joined(separator: ",")]), accounted.status == 0 {
            read(accounted.output)
        }
        return states
    }

    /// Runs a Slurm command found on PATH; its status, output and errors.
    static func command(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let path = folders.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ServeProblem(status: 500, title: "No Slurm", detail: "\(name) is not on PATH (Debian's slurm-client)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("segue-slurm-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
