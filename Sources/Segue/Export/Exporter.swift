import Dispatch
import Foundation
import Synchronization

/// How far an export has come.
public struct ExportProgress: Sendable {
    /// Frames written so far.
    public var framesDone: Int
    /// Frames the export writes in all.
    public var frameCount: Int
    /// Seconds since the export started.
    public var elapsed: Double

    public init(framesDone: Int, frameCount: Int, elapsed: Double) {
        self.framesDone = framesDone
        self.frameCount = frameCount
        self.elapsed = elapsed
    }
}

/// What an export did.
public struct ExportResult: Sendable {
    public var output: String
    public var format: OutputFormat
    public var frameCount: Int
    /// Frames actually composed; the rest repeated the frame before them (still holds) or
    /// were copied from a clip (`framesCopied`).
    public var framesComposed: Int
    /// Frames that were a clip's frame as decoded, filling the canvas: copied, not composed.
    public var framesCopied = 0
    /// Seconds spent composing those frames (on the rendering thread, beside the encoder).
    public var composeSeconds: Double
    /// Seconds spent decoding and resampling the inputs before the first frame, and waiting
    /// for (or making) the still pictures of a frame that its composing thread found not
    /// yet made (a transition's incoming picture, made beside the export, at the very start).
    public var prepareSeconds: Double
    public var seconds: Double
    /// True when `--resume` found the output already made from the same fingerprint and
    /// kept it: nothing was rendered.
    public var skipped = false
    /// The job's fingerprint, when it was computed (outputs that keep one, `--resume`).
    public var fingerprint: String?
    /// True when its storyboard was made while the job before it in a batch ran.
    public var readiedAhead = false
}

/// Runs jobs: the storyboard, the sink, and the frame pipeline between them (frames composed
/// on `job.threads` threads while the calling thread hands them to the sink in order).
public enum Exporter {
    /// Exports a job. `progress` is called on the calling thread after each frame is written;
    /// cancelling `cancellation` (from any thread, a signal handler's queue say) stops the
    /// export within a frame, removes what it wrote and throws `ExportError.cancelled`.
    ///
    /// With `job.resume`, an output that keeps the job's fingerprint is left as it is and the
    /// result says `skipped`. `fingerprint` may pass the job's fingerprint when the caller
    /// has already computed it.
    @discardableResult
    public static func run(_ job: Job, fingerprint known: String? = nil, cancellation: Cancellation? = nil,
                           progress: ((ExportProgress) -> Void)? = nil) throws -> ExportResult {
        try run(job, fingerprint: known, cancellation: cancellation, ahead: nil, progress: progress)
    }

    /// Exports a job whose frames may have been prepared `ahead` of it (see `PreparedAhead`).
    static func run(_ job: Job, fingerprint known: String?, cancellation: Cancellation?, ahead: PreparedAhead?,
                    progress: ((ExportProgress) -> Void)?) throws -> ExportResult {
        let start = DispatchTime.now()
        try job.validate()
        // A video with sound (MP4, WebM, MOV) always carries its fingerprint (in its metadata),
        // so a later --resume can trust it; the other outputs keep theirs in a hidden file,
        // written only with --resume.
        let keepsFingerprint = job.format.keepsFingerprintInside || (job.resume && job.output != "-" && job.format != .null)
        // The fingerprint reads every input whole. --resume needs it first; otherwise only the
        // sink does, so it is worked out beside the storyboard and its first pictures.
        let digest = Promise<String?>()
        // The fingerprint's thread stops at its next input when the export ends without it.
        let reading = Cancellation()
        var fingerprintThread: Threads.Handle?
        defer {
            reading.cancel()
            fingerprintThread?.join()
        }
        if !keepsFingerprint || known != nil || job.resume {
            digest.fulfil(Result { try keepsFingerprint ? known ?? Fingerprint.of(job) : nil })
        } else {
            fingerprintThread = Threads.start(.fingerprint) { digest.fulfil(Result { try Fingerprint.of(job, cancellation: reading) }) }
        }
        if job.resume, let fingerprint = try digest.wait(), Fingerprint.stored(output: job.output, format: job.format) == fingerprint {
            return ExportResult(output: job.output, format: job.format, frameCount: job.frameIndices(count: job.timeline.frameCount).count,
                                framesComposed: 0, composeSeconds: 0, prepareSeconds: 0, seconds: seconds(since: start),
                                skipped: true, fingerprint: fingerprint)
        }
        // A video's encoder sets the pace (x264's lookahead runs on this thread): the threads
        // that compose and prepare ahead of it yield to it, and take the time it leaves.
        let yielding = job.format.isVideo
        var prepared: PreparedFrames?
        do {
            prepared = try ahead?.frames() ?? PreparedFrames(job: job, yielding: yielding)
        } catch {
            // An input that cannot be read fails as it did when the fingerprint came first.
            _ = try digest.wait()
            throw error
        }
        let prepareSeconds = seconds(since: start)
        if cancellation?.isCancelled == true { throw ExportError.cancelled }
        let indices = job.frameIndices(count: prepared!.storyboard.timeline.frameCount)
        // The first pass takes the frames prepared above (and nothing else keeps them after).
        let first = { () -> PreparedFrames in defer { prepared = nil }; return prepared! }
        // The output's passes (a GIF with a palette of the whole video has two, the first for
        // the palette): each pass's frames and sink are made when it starts, so the second
        // pass's pictures are prepared once the first pass's are let go.
        let sinks = try job.format.sinks(OutputFormat.SinkRequest(job: job, fingerprint: { try digest.wait() }))
        let passes: [(frames: () throws -> PreparedFrames, sink: () throws -> FrameSink)] = sinks.enumerated().map { index, sink in
            (frames: index == 0 ? first : { try PreparedFrames(job: job, yielding: yielding) }, sink: sink)
        }
        var outcomes: [FramePipeline.Outcome] = []
        for (pass, stage) in passes.enumerated() {
            if cancellation?.isCancelled == true { throw ExportError.cancelled }
            let pipeline = FramePipeline(frames: try stage.frames(), indices: indices, threads: job.threads, output: job.output, yielding: yielding)
            outcomes.append(try pipeline.run(into: try stage.sink(), cancellation: cancellation) { done in
                progress?(ExportProgress(framesDone: pass * indices.count + done, frameCount: passes.count * indices.count, elapsed: seconds(since: start)))
            })
        }
        return ExportResult(output: job.output, format: job.format, frameCount: indices.count,
                            framesComposed: outcomes.map(\.composed).reduce(0, +), framesCopied: outcomes.map(\.copied).reduce(0, +),
                            composeSeconds: outcomes.map(\.composeSeconds).reduce(0, +),
                            prepareSeconds: prepareSeconds + outcomes.map(\.waitSeconds).reduce(0, +), seconds: seconds(since: start), fingerprint: try digest.wait(),
                            readiedAhead: ahead != nil)
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// A job's frames prepared on a thread of its own while the job before it in a batch runs:
/// its first pictures decoded, its text laid out, and the still pictures of its first frame
/// made, so that it starts encoding as soon as the job before it ends. The thread yields to
/// the running export's encoder, and takes the time it leaves (composing and x264 leave part
/// of a core idle, most at the start and end of each video).
final class PreparedAhead: Sendable {
    private let made: Promise<PreparedFrames>
    private let thread: Threads.Handle

    init(_ job: Job) {
        let made = Promise<PreparedFrames>()
        self.made = made
        thread = Threads.start(.storyboardAhead, yielding: true) {
            made.fulfil(Result {
                let frames = try PreparedFrames(job: job, yielding: job.format.isVideo)
                if let first = job.frameIndices(count: frames.storyboard.timeline.frameCount).first {
                    try frames.prepareStills(of: first, threads: 1)
                }
                return frames
            })
        }
    }

    /// The frames, waited for; the error their making threw, if it failed.
    func frames() throws -> PreparedFrames {
        defer { thread.join() }
        return try made.wait()
    }
}
