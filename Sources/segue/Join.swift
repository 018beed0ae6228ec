import ArgumentParser
import Foundation
import Segue

struct Join: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Joins the chunks that 'segue render --chunk K/N' wrote into one MP4, without re-encoding.",
        discussion: """
            Give the same story (or inputs) and options as the chunks were rendered with, and the \
            same -o: the chunks are read from OUTPUT.chunks/. Every chunk must be there, of this \
            job (its fingerprint) and encoded by the same FFmpeg and x264 as the others, and, \
            when the video has sound, the sound chunk ('render --chunk sound'); a missing, \
            foreign or mismatched chunk is named and nothing is written (exit 2). The chunks' \
            video is copied one after another and the sound chunk's packets beside it, nothing \
            encoded again, and the MP4 is written atomically with its index at the front.

            --resume renders here the chunks (and the sound chunk) that are missing or of another \
            job before joining, and keeps an OUTPUT already made from the same job.
            """
    )

    @OptionGroup var what: RenderInputs

    @OptionGroup var options: ExportOptions

    @Option(name: .short, help: ArgumentHelp("The joined MP4; its chunks are in OUTPUT.chunks/.", valueName: "OUTPUT"))
    var output: String

    @Option(help: ArgumentHelp("How many chunks there are (default: what the chunks in OUTPUT.chunks/ say).", valueName: "N"))
    var chunkCount: Int?

    @Flag(help: "Removes OUTPUT.chunks/ once the joined MP4 is written.")
    var clean = false

    func validate() throws {
        if let chunkCount, chunkCount < 1 { throw ValidationError("--chunk-count \(chunkCount): expected 1 or more.") }
        if what.frames != nil { throw ValidationError("--frames: a join holds every frame of the video.") }
        if OutputFormat.inferred(from: output) != .mp4 { throw ValidationError("-o \(output): chunks join into an MP4; give a .mp4 name.") }
    }

    func run() throws {
        let job = try what.job(options: options, output: output, format: .mp4)
        Interruption.shared.install()
        let json = options.effectiveProgress == .json
        let reporter = ProgressReporter(mode: options.effectiveProgress, job: output, phase: "join")
        let total = job.timeline.frameCount
        let start = DispatchTime.now()
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
        reporter.report(ExportProgress(framesDone: 0, frameCount: total, elapsed: 0))
        let result = try Chunks.join(job, count: chunkCount, cancellation: Interruption.shared.cancellation) { chunk in
            if json {
                reporter.report(ExportProgress(framesDone: 0, frameCount: total, elapsed: elapsed()), extra: ",\"rendered\":\(ProgressReporter.quoted(chunk))")
            } else if !options.quiet {
                FileHandle.standardError.write(Data("segue: rendered the missing chunk \(chunk)\n".utf8))
            }
        }
        reporter.report(ExportProgress(framesDone: total, frameCount: total, elapsed: elapsed()))
        guard !json else { return }
        if clean, !result.skipped { try? FileManager.default.removeItem(atPath: Chunks.folder(for: output)) }
        guard !options.quiet else { return }
        let line = result.skipped
            ? "segue: kept \(output): it was made from the same job (\(result.fingerprint))\n"
            : String(format: "segue: joined %d chunks into %@ (%d frames, %.2f s)\n", result.chunks, output, result.frameCount, result.seconds)
        FileHandle.standardError.write(Data(line.utf8))
    }
}
