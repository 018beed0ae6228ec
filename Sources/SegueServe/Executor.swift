package import Foundation
import Segue

/// What runs the service's renders. `local` is its own workers; each takes the oldest queued
/// render, renders it to the store's outputs (under a temporary name, renamed when whole, as
/// `segue render` writes), and ends it in the store.
protocol Executor: Sendable {
    /// Starts taking renders from the store.
    func start()
    /// A render was queued.
    func wake()
    /// Stops a render that is running; false when it is not running here.
    func cancel(_ id: String) -> Bool
}

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
            _ = Workers.start { [self] in
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
        let output = ServeDocuments.outputPath(store, record)
        do {
            let threads = max(1, ProcessInfo.processInfo.activeProcessorCount / settings.workers)
            let job = try RenderAsk(text: record.request).job(inputs: settings.inputs, output: output,
                                                               limits: Limits(maxPixelFrames: settings.maxPixelFrames), threads: threads)
            let last = Locked((status: "", time: 0.0))
            let result = try Exporter.run(job, cancellation: cancellation) { [store] progress in
                let status = progress.framesDone >= progress.frameCount ? "encoding" : "rendering"
                let now = JobStore.now
                // The store hears of progress at most four times a second, and of each change of state.
                guard last.withLock({ last in
                    guard status != last.status || now - last.time >= 0.25 else { return false }
                    last = (status, now)
                    return true
                }) else { return }
                try? store.progress(record.id, status: status, done: progress.framesDone, total: progress.frameCount)
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)??.intValue ?? 0
            try store.end(record.id, status: "done", outputBytes: bytes, fingerprint: result.fingerprint)
        } catch {
            if cancellation.isCancelled {
                _ = try? store.end(record.id, status: "cancelled")
                return
            }
            let first = (error as? ServeProblem)?.errors.first ?? ServeProblem.errors(of: error).first ?? .init(message: "\(error)")
            var entry = first
            if let problem = error as? ServeProblem { entry.message = problem.detail }
            let text = (try? ServeDocuments.encoder.encode(entry)).map { String(decoding: $0, as: UTF8.self) }
            _ = try? store.end(record.id, status: "failed", error: text)
        }
    }
}
