import CSegueAV
import Foundation

/// One video rendered as chunks on many machines and joined on one, without re-encoding.
///
/// Chunk K of N is a frame range of the job: the same timeline, compositor and encoder
/// settings, only the frames differ. Ranges are contiguous and their sizes within one frame
/// of each other (a chunk may have none, when there are more chunks than frames). An MP4
/// chunk is a video of its own (it starts with an IDR picture; x264's GOPs are closed) with
/// no sound, written atomically into `OUTPUT.chunks/` with the job's fingerprint, its range
/// and the FFmpeg build that wrote it. The join checks every chunk, copies their video one
/// after another and makes the soundtrack once for the whole timeline, so no seam can click.
public enum Chunks {
    /// The frames of chunk `part` of a video of `frames` frames.
    public static func frames(of part: Shard, in frames: Int) -> Range<Int> { part.frames(in: frames) }

    /// The folder an output's chunks go to: `out.mp4.chunks`.
    public static func folder(for output: String) -> String { output + ".chunks" }

    /// The file of chunk `part` of `output`: `out.mp4.chunks/chunk-002-of-008.mp4`.
    public static func file(_ part: Shard, of output: String) -> String {
        let width = max(3, String(part.count).count)
        func padded(_ n: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return folder(for: output) + "/chunk-\(padded(part.index + 1))-of-\(padded(part.count)).mp4"
    }


    /// A chunk file as its tags and video stream say.
    struct Info {
        var fingerprint, chunk, build, encoder, codec, parameters: String
        var width, height: Int
        var frames: Int
        var startsWithKeyframe: Bool

        init(path: String) throws {
            var info = SegueChunkInfo()
            var error = SegueAVError()
            guard segue_chunk_info(path, &info, &error) == 0 else { throw ExportError.chunk("\(path): cannot read the chunk: \(error.text)") }
            func text<T>(_ field: inout T) -> String {
                withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            fingerprint = text(&info.fingerprint)
            chunk = text(&info.chunk)
            build = text(&info.build)
            encoder = text(&info.encoder)
            codec = text(&info.codec)
            parameters = text(&info.parameters)
            width = Int(info.width)
            height = Int(info.height)
            frames = Int(info.packets)
            startsWithKeyframe = info.starts_with_keyframe != 0
        }

        /// How the chunk was encoded, for comparing chunks: the codec, size, stream
        /// parameters, the encoder library's identity and the FFmpeg build.
        var encoding: [(String, String)] {
            [("codec", codec), ("size", "\(width)x\(height)"), ("stream parameters (MD5 of SPS/PPS)", parameters),
             ("encoder", encoder.isEmpty ? "unknown" : encoder), ("FFmpeg", build)]
        }
    }

    /// What a join did.
    public struct JoinResult: Sendable {
        public var chunks: Int
        public var frameCount: Int
        /// Chunks that `--resume` found missing (or of another job) and rendered here.
        public var rendered: [String] = []
        public var seconds: Double
        /// True when `--resume` found the output already made from the same job.
        public var skipped = false
        public var fingerprint: String
    }

    /// Joins the chunks of `job` (an MP4, its `output` the joined file) into `job.output`.
    /// `count` is the number of chunks (nil: what the chunks in the folder say). With
    /// `job.resume`, chunks that are missing or of another job are rendered here first, and
    /// an output already made from the same job is kept. A missing, foreign or mismatched
    /// chunk is refused by name (`ExportError.chunk`, exit 2).
    public static func join(_ job: Job, count: Int? = nil, cancellation: Cancellation? = nil,
                            progress: ((String) -> Void)? = nil) throws -> JoinResult {
        let start = DispatchTime.now()
        guard job.format == .mp4 else { throw ExportError.chunk("\(job.output): chunks join into an MP4 (H.264 or HEVC); render a \(job.format.rawValue) on one machine") }
        if let count, count < 1 { throw ExportError.chunk("--chunk-count \(count): expected 1 or more") }
        try job.validate()
        let fingerprint = try Fingerprint.of(job)
        let total = job.timeline.frameCount
        if job.resume, Fingerprint.stored(output: job.output, format: .mp4) == fingerprint {
            return JoinResult(chunks: count ?? 0, frameCount: total, seconds: Exporter.seconds(since: start), skipped: true, fingerprint: fingerprint)
        }
        let n = try count ?? chunkCount(in: folder(for: job.output), resume: job.resume)
        var rendered: [String] = []
        // Each chunk read, with its place: which chunk, its file, its frames.
        var read: [(part: Shard, path: String, range: Range<Int>, info: Info)] = []
        var problems: [String] = []
        for k in 0..<n {
            if cancellation?.isCancelled == true { throw ExportError.cancelled }
            let part = Shard(index: k, count: n, source: "chunk \(k + 1)/\(n)")
            let path = file(part, of: job.output), range = frames(of: part, in: total)
            var info = FileManager.default.fileExists(atPath: path) ? try Info(path: path) : nil
            if job.resume, info?.fingerprint != fingerprint {
                var chunk = job
                chunk.output = path
                chunk.chunk = part
                try Exporter.run(chunk, fingerprint: fingerprint, cancellation: cancellation)
                rendered.append(path)
                progress?(path)
                info = try Info(path: path)
            }
            guard let info else { problems.append("\(path): missing: chunk \(k + 1) of \(n) (frames \(describe(range))) was not rendered"); continue }
            let expected = part.chunkTag(frames: total)
            if info.fingerprint != fingerprint {
                problems.append("\(path): a chunk of another job (fingerprint \(info.fingerprint.isEmpty ? "none" : info.fingerprint), this job's \(fingerprint)): render it again with the same story and options")
            } else if info.chunk != expected {
                problems.append("\(path): says it is chunk '\(info.chunk)', expected '\(expected)' (chunk K/N, first-last frame, frames in all)")
            } else if info.frames != range.count {
                problems.append("\(path): holds \(info.frames) frames, expected \(range.count)")
            } else if info.frames > 0, !info.startsWithKeyframe {
                problems.append("\(path): does not start with a keyframe")
            }
            read.append((part, path, range, info))
        }
        // Every chunk with frames encoded as the first one was.
        let filled = read.filter { $0.info.frames > 0 && $0.info.fingerprint == fingerprint }
        if let reference = filled.first {
            for chunk in filled.dropFirst() {
                for ((what, mine), (_, theirs)) in zip(chunk.info.encoding, reference.info.encoding) where mine != theirs {
                    problems.append("\(chunk.path): its \(what) is \(mine), chunk \(reference.part.index + 1)'s \(theirs): render every chunk with the same Segue, FFmpeg and x264")
                }
            }
        }
        guard problems.isEmpty else {
            throw ExportError.chunk(problems.count == 1 ? problems[0] : "\(problems.count) chunks cannot be joined into \(job.output):\n" + problems.map { "  " + $0 }.joined(separator: "\n"))
        }
        if cancellation?.isCancelled == true { throw ExportError.cancelled }
        let parts = filled.map { (path: $0.path, start: $0.range.lowerBound) }
        try write(job, chunks: parts, frames: total, fingerprint: fingerprint)
        return JoinResult(chunks: n, frameCount: total, rendered: rendered, seconds: Exporter.seconds(since: start), fingerprint: fingerprint)
    }

    /// The number of chunks the files in `folder` say there are.
    static func chunkCount(in folder: String, resume: Bool) throws -> Int {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("chunk-") && $0.hasSuffix(".mp4") }
        let counts = Set(names.compactMap { name -> Int? in
            guard let of = name.range(of: "-of-") else { return nil }
            return Int(name[of.upperBound...].dropLast(4))
        })
        guard let count = counts.first else {
            throw ExportError.chunk("\(folder): no chunks\(resume ? " to tell how many there are; pass --chunk-count N" : ""): render them first with 'segue render --chunk K/N' (or join with --resume --chunk-count N to render them here)")
        }
        guard counts.count == 1 else {
            throw ExportError.chunk("\(folder): holds chunks of \(counts.sorted().map(String.init).joined(separator: " and of ")) chunks; pass --chunk-count N to say which")
        }
        return count
    }

    static func describe(_ range: Range<Int>) -> String { Shard.describe(range) }

    /// Writes the joined file: the chunks' video (`chunks`: each file with its first frame) and
    /// the job's soundtrack, made once.
    static func write(_ job: Job, chunks: [(path: String, start: Int)], frames: Int, fingerprint: String) throws {
        let file = try StagedFile(target: job.output, replace: job.overwrite || job.resume)
        let soundtrack = job.soundtrack
        var error = SegueAVError()
        let paths = chunks.map { strdup($0.path) }
        defer { paths.forEach { free($0) } }
        let starts = chunks.map { Int64($0.start) }
        let status = file.temporary.withCString { path in
            fingerprint.withCString { tag in "mp4".withCString { mp4 in
                soundtrack.withConfig { track in
                    paths.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
                        starts.withUnsafeBufferPointer { starts in
                            var config = SegueJoinConfig(path: path, format_name: mp4, chunks: names.baseAddress, starts: starts.baseAddress,
                                                         count: Int32(chunks.count), fps_num: Int32(job.preset.fps.numerator),
                                                         fps_den: Int32(job.preset.fps.denominator), frames: Int64(frames),
                                                         fingerprint: tag, audio: soundtrack.hasTrack ? track : nil)
                            return segue_join(&config, &error)
                        }
                    }
                }
            } }
        }
        guard status == 0 else {
            file.discard()
            throw ExportError.encoder(path: job.output, reason: "joining the chunks: \(error.text)")
        }
        try file.commit()
    }
}
