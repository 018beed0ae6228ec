import Foundation
import Segue

/// What the page asks the session to draw on demand: a frame at full resolution, a slide's
/// thumbnail, and the story's export.
extension PreviewSession {
    /// Frame `n` of the last good story at the canvas's size, as a PNG: the frame that
    /// `segue render --frames N` writes.
    /// Frames are drawn on `Workers.run`'s threads, as many at a time as the cores (each holds
    /// its pictures at full size and a canvas-sized frame), with at most `framesQueued` asked
    /// at once in all: a burst beyond is refused (`busy`, 503) rather than held, so memory
    /// stays bounded however many ask.
    func frame(_ n: Int) async throws -> [UInt8] {
        guard let job = state.withLock({ $0.good?.job }) else { throw PreviewRequestError.notReady }
        guard (0..<job.timeline.frameCount).contains(n) else { throw PreviewRequestError.noSuchFrame(n, count: job.timeline.frameCount) }
        let admitted = framesAsked.withLock { asked -> Bool in
            guard asked < PreviewSession.framesQueued else { return false }
            asked += 1
            return true
        }
        guard admitted else { throw PreviewRequestError.busy(PreviewSession.framesQueued) }
        defer { framesAsked.withLock { $0 -= 1 } }
        let folder = work + "/frame-\(n)-\(UInt32.random(in: 0...UInt32.max))"
        return try await Workers.run { try PreviewSession.picture(job.pictures([n], output: folder), folder: folder) }
    }

    /// Full frames asked at once, drawn or waiting: the page asks for one at a time.
    static let framesQueued = 8

    /// Slide `index`'s thumbnail: the middle of its hold, 120 pixels wide; kept by its
    /// segment's key, so an edit elsewhere does not draw it again.
    func thumbnail(_ index: Int) async throws -> [UInt8] {
        guard let good = state.withLock({ $0.good }) else { throw PreviewRequestError.notReady }
        guard good.description.slides.indices.contains(index) else { throw PreviewRequestError.noSuchSlide(index) }
        let key = good.description.slides[index].key
        if let known = thumbnails.withLock({ $0[key] }) { return known }
        let slide = good.description.slides[index], fps = good.job.preset.fps
        let middle = min(good.job.timeline.frameCount - 1, max(0, Int(fps.frames(in: (slide.holdStart + slide.holdEnd) / 2))))
        let folder = work + "/thumb-\(index)-\(UInt32.random(in: 0...UInt32.max))"
        let fraction = 120 / Double(good.job.preset.canvas.width)
        let png = try await Workers.run { try PreviewSession.picture(good.job.pictures([middle], fraction: fraction, output: folder), folder: folder) }
        let keys = Set(good.description.slides.map(\.key))
        thumbnails.withLock { known in
            known = known.filter { keys.contains($0.key) }
            known[key] = png
        }
        return png
    }

    /// Renders `job` (one PNG frame into `folder`) and gives the picture's bytes.
    static func picture(_ job: Job, folder: String) throws -> [UInt8] {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Exporter.run(job)
        guard let name = try FileManager.default.contentsOfDirectory(atPath: folder).first(where: { $0.hasSuffix(".png") }) else {
            throw PreviewRequestError.noPicture
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    }

    /// Starts the story's export (the Render button) on a thread of its own; refused while one runs.
    func export() throws {
        let row = try state.withLock { s -> Int in
            if s.export.running { throw PreviewRequestError.exporting(s.export.done, s.export.total) }
            s.export = ExportStatus(number: s.export.number + 1, running: true)
            return s.row
        }
        Workers.start { [self] in
            let start = DispatchTime.now()
            var last = 0.0
            do {
                let (job, _) = try settings.load(vars: rowValues(row), output: settings.output, format: OutputFormat.inferred(from: settings.output) ?? .mp4)
                try Exporter.run(job) { [self] progress in
                    state.withLock {
                        $0.export.done = progress.framesDone
                        $0.export.total = progress.frameCount
                    }
                    if progress.elapsed - last >= 0.25 {
                        last = progress.elapsed
                        publish("export", data: "{\"done\":\(progress.framesDone),\"total\":\(progress.frameCount)}")
                    }
                }
                state.withLock {
                    $0.export.running = false
                    $0.export.output = URL(fileURLWithPath: settings.output).path
                    $0.export.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
                }
            } catch {
                state.withLock {
                    $0.export.running = false
                    $0.export.error = PreviewSession.message(error)
                }
            }
            publish("export")
        }
    }
}

enum PreviewRequestError: Error, CustomStringConvertible {
    case notReady
    case noSuchFrame(Int, count: Int)
    case noSuchSlide(Int)
    case noPicture
    case exporting(Int, Int)
    /// Too many full frames asked at once: the bound.
    case busy(Int)

    var description: String {
        switch self {
        case .notReady: return "no preview yet: the story has not read"
        case let .noSuchFrame(n, count): return "frame \(n): the video has frames 0 to \(count - 1)"
        case let .noSuchSlide(n): return "slide \(n): no such slide"
        case .noPicture: return "the frame was not drawn"
        case let .exporting(done, total): return "an export is already running (\(done) of \(total) frames)"
        case let .busy(bound): return "\(bound) frames are being drawn or waiting already: ask again once one is done"
        }
    }
}
