package import Foundation
package import Segue

/// What runs the service's renders: `local`, the service's own workers, or `slurm`, a
/// cluster's jobs (SlurmExecutor.swift). Both run a render as `RenderRun` does.
protocol Executor: Sendable {
    /// Starts taking renders from the store.
    func start()
    /// A render was queued.
    func wake()
    /// Stops a render that is running; true when the executor ends it in the store itself,
    /// false when the caller should (it was not running, or it is stopped elsewhere).
    func cancel(_ id: String) -> Bool
}

/// The executors `--executor` names, each made from the store and the settings, and whether
/// its renders run on while the service is down (they are then watched on after a restart,
/// not queued again).
package enum Executors {
    struct Kind: Sendable {
        var make: @Sendable (JobStore, ServeSettings) -> any Executor
        var outlivesService: Bool
    }

    static let kinds: [String: Kind] = [
        "local": Kind(make: { LocalExecutor(store: $0, settings: $1) }, outlivesService: false),
        "slurm": Kind(make: { SlurmExecutor(store: $0, settings: $1) }, outlivesService: true),
    ]

    package static var names: [String] { kinds.keys.sorted() }
}

/// One render's run, as every executor runs it: the request read again under its inputs'
/// confinement (the files may have changed since it was admitted), rendered to `output`
/// under a temporary name renamed when whole (as `segue render` writes), its progress told
/// at most four times a second and at each change of state.
package enum RenderRun {
    package enum Outcome: Codable, Equatable {
        case done(fingerprint: String?, bytes: Int)
        /// The error as the document's `RenderError` JSON (message, file, line, key).
        case failed(error: String)
        case cancelled
    }

    /// `progress(status, framesDone, framesTotal)`: `rendering` or `encoding`.
    package static func perform(request: String, inputs: [String], uploads: String?, output: String, limits: Limits, threads: Int,
                                library: PresetLibrary? = nil, cancellation: Cancellation, progress: @escaping @Sendable (String, Int, Int) -> Void) -> Outcome {
        do {
            let job = try RenderAsk(text: request).job(inputs: inputs, uploads: uploads, output: output, limits: limits, threads: threads, library: library)
            let last = Locked((status: "", time: 0.0))
            let result = try Exporter.run(job, cancellation: cancellation) { told in
                let status = told.framesDone >= told.frameCount ? "encoding" : "rendering"
                let now = JobStore.now
                guard last.withLock({ last in
                    guard status != last.status || now - last.time >= 0.25 else { return false }
                    last = (status, now)
                    return true
                }) else { return }
                progress(status, told.framesDone, told.frameCount)
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)??.intValue ?? 0
            return .done(fingerprint: result.fingerprint, bytes: bytes)
        } catch {
            if cancellation.isCancelled { return .cancelled }
            var entry = (error as? ServeProblem)?.errors.first ?? ServeProblem.errors(of: error).first ?? .init(message: "\(error)")
            if let problem = error as? ServeProblem { entry.message = problem.detail }
            return failure(entry)
        }
    }

    /// The outcome of a run that failed with `entry`.
    static func failure(_ entry: Components.Schemas.RenderError) -> Outcome {
        .failed(error: (try? ServeDocuments.encoder.encode(entry)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
    }

    /// Stores a run's end; an output made for a render that had ended meanwhile (cancelled at
    /// its last frame) is removed.
    static func end(_ store: JobStore, _ record: RenderRecord, _ outcome: Outcome) {
        switch outcome {
        case let .done(fingerprint, bytes):
            if (try? store.end(record.id, status: "done", outputBytes: bytes, fingerprint: fingerprint)) != true {
                try? FileManager.default.removeItem(atPath: ServeDocuments.outputPath(store, record))
            }
        case let .failed(error): _ = try? store.end(record.id, status: "failed", error: error)
        case .cancelled: _ = try? store.end(record.id, status: "cancelled")
        }
    }
}

/// `--executor local`: `settings.workers` threads; each takes the oldest queued render and
/// renders it with its share of the cores, at a lower priority than the service's answers
/// (the threads a render starts inherit it), so that a submission is not kept waiting.
final class LocalExecutor: Executor {
    let store: JobStore
    let settings: ServeSettings
    private let running = Locked([String: Cancellation]())
    private let signal = DispatchSemaphore(value: 0)

    init(store: JobStore, settings: ServeSettings) {
        self.store = store
        self.settings = settings
    }

    func start() {
        for _ in 0..<settings.workers {
            _ = Workers.start(yielding: true) { [self] in
                while true {
                    guard let record = try? store.claim() else {
                        _ = signal.wait(timeout: .now() + 1)
                        continue
                    }
                    run(record)
                }
            }
        }
    }

    func wake() { signal.signal() }

    func cancel(_ id: String) -> Bool {
        running.withLock { running in
            guard let cancellation = running[id] else { return false }
            cancellation.cancel()
            return true
        }
    }

    private func run(_ record: RenderRecord) {
        let cancellation = Cancellation()
        running.withLock { $0[record.id] = cancellation }
        defer { running.withLock { $0[record.id] = nil } }
        let threads = max(1, ProcessInfo.processInfo.activeProcessorCount / settings.workers)
        let outcome = RenderRun.perform(request: record.request, inputs: settings.inputs, uploads: store.sentFiles(record.id), output: ServeDocuments.outputPath(store, record),
                                        limits: Limits(maxPixelFrames: settings.maxPixelFrames), threads: threads, library: settings.presets,
                                        cancellation: cancellation) { [store] status, done, total in
            // Ended meanwhile (cancelled as it was claimed): stop.
            if (try? store.progress(record.id, status: status, done: done, total: total)) == false { cancellation.cancel() }
        }
        RenderRun.end(store, record, outcome)
    }
}
