import CSegueAV
import Foundation

/// One video rendered as chunks on many machines and joined on one, without re-encoding.
///
/// Chunk K of N is a frame range of the job: the same timeline, compositor and encoder
/// settings, only the frames differ. Ranges are contiguous and their sizes within one frame
/// of each other (a chunk may have none, when there are more chunks than frames). An MP4
/// chunk is a video of its own (it starts with an IDR picture; x264's GOPs are closed) with
/// no sound, written atomically into `OUTPUT.chunks/` with the job's fingerprint, its range
/// and the FFmpeg build that wrote it. The soundtrack is a task of its own, the sound chunk
/// (`sound.m4a` in the same folder): the whole timeline's sound made once, as a one-machine
/// render makes it, so no seam can click. The join checks every chunk and copies their video
/// one after another and the sound chunk's packets beside it: it encodes nothing.
public enum Chunks {
    /// What a chunk task renders: a range of the video's frames, or the sound.
    public enum Part: Equatable, Sendable {
        case video(Shard)
        case sound
    }

    /// The part array task `task` renders (`--chunk auto`): with sound, the last task renders
    /// the sound chunk and the others the video's `count - 1` chunks; without, every task a
    /// video chunk.
    public static func part(of task: Shard, sound: Bool) throws -> Part {
        guard sound else { return .video(task) }
        guard task.count >= 2 else {
            throw ExportError.chunk("--chunk auto (\(task.source)): a video with sound is rendered by 2 tasks or more, the last one rendering its sound; this array has 1")
        }
        if task.index == task.count - 1 { return .sound }
        return .video(Shard(index: task.index, count: task.count - 1, source: task.source))
    }

    /// The sound chunk of `output`: `out.mp4.chunks/sound.m4a`.
    public static func soundFile(of output: String) -> String { folder(for: output) + "/sound.m4a" }

    /// Whether `job`'s join needs a sound chunk: an MP4 with a soundtrack.
    public static func hasSound(_ job: Job) -> Bool { job.format.hasSound && job.soundtrack.hasTrack }

    /// What rendering the sound chunk did.
    public struct SoundResult: Sendable {
        public var path: String
        public var seconds: Double
        /// True when `--resume` found it made from the same job; false also when there is no sound.
        public var skipped = false
        /// False when the video has no sound: nothing was written.
        public var written = true
    }

    /// Renders `job`'s sound chunk (`job.output` is the joined file's name): the soundtrack of
    /// the whole video, its AAC packets those a one-machine render writes, atomically into
    /// the chunk folder with the job's fingerprint. A video without sound has none to render.
    public static func renderSound(_ job: Job, fingerprint known: String? = nil) throws -> SoundResult {
        let start = DispatchTime.now()
        let path = soundFile(of: job.output)
        guard job.format == .mp4 else { throw ExportError.chunk("\(job.output): chunks join into an MP4 (H.264 or HEVC); render a \(job.format.rawValue) on one machine") }
        guard job.frames == nil else { throw ExportError.chunk("--chunk sound: the sound chunk is the whole video's; not with --frames") }
        // Its inputs and settings as the video's; its own file is checked here.
        try job.delivering {
            $0.output = path
            $0.overwrite = true
        }.validate()
        guard hasSound(job) else { return SoundResult(path: path, seconds: Exporter.seconds(since: start), written: false) }
        let fingerprint = try known ?? Fingerprint.of(job)
        let exists = FileManager.default.fileExists(atPath: path)
        if exists, job.resume, (try? Info(path: path))?.fingerprint == fingerprint {
            return SoundResult(path: path, seconds: Exporter.seconds(since: start), skipped: true)
        }
        if exists, !job.overwrite, !job.resume { throw ExportError.outputExists(path) }
        let file = try StagedFile(target: path, replace: true)
        do {
            try writeSound(job, to: file.temporary, fingerprint: fingerprint)
        } catch {
            file.discard()
            throw ExportError.encoder(path: path, reason: "making the sound chunk: \(error)")
        }
        try file.commit()
        return SoundResult(path: path, seconds: Exporter.seconds(since: start))
    }

    /// Writes `job`'s sound chunk to `path`. The track's segments of about a minute (one AAC encoder
    /// each, see soundtrack.c) are encoded on as many of the job's threads as there are
    /// segments, each thread mixing the whole track and encoding its own segments into a file
    /// of its own; their packets are then merged in order. The loudness is measured once.
    static func writeSound(_ job: Job, to path: String, fingerprint: String) throws {
        let soundtrack = job.soundtrack
        let fps = (num: Int32(job.preset.fps.numerator), den: Int32(job.preset.fps.denominator))
        let frames = Int64(job.timeline.frameCount)
        let parts = max(1, min(Int(segue_sound_segments(frames, fps.num, fps.den)), job.threads, 64))
        @Sendable func write(_ target: String, part: Int, tail: String?) throws {
            var error = SegueAVError()
            let status = target.withCString { target in
                fingerprint.withCString { tag in
                    withOptionalCString(tail) { tail in
                        soundtrack.withConfig { track in
                            var config = SegueSoundChunkConfig(path: target, audio: track, fps_num: fps.num, fps_den: fps.den, frames: frames,
                                                               fingerprint: tag, part: Int32(part), parts: Int32(parts), tail: tail)
                            return segue_sound_chunk(&config, &error)
                        }
                    }
                }
            }
            guard status == 0 else { throw SoundChunkFailure(text: error.text) }
        }
        guard parts > 1 else { return try write(path, part: 0, tail: nil) }
        var error = SegueAVError()
        var buffer = [CChar](repeating: 0, count: 512)
        let measured = soundtrack.withConfig { track in segue_sound_tail(track, frames, fps.num, fps.den, &buffer, Int32(buffer.count), &error) }
        guard measured == 0 else { throw SoundChunkFailure(text: error.text) }
        let tail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let files = (0..<parts).map { "\(path).part-\($0 + 1)-of-\(parts)" }
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        _ = try parallelMap(Array(files.enumerated()), threads: parts) { part in try write(part.element, part: part.offset, tail: tail) }
        let names = files.map { strdup($0) }
        defer { names.forEach { free($0) } }
        let merged = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            fingerprint.withCString { tag in
                path.withCString { target in
                    var config = SegueSoundChunkConfig(path: target, audio: nil, fps_num: fps.num, fps_den: fps.den, frames: frames,
                                                       fingerprint: tag, part: 0, parts: 0, tail: nil)
                    return segue_sound_chunk_merge(&config, pointers.baseAddress, Int32(parts), &error)
                }
            }
        }
        guard merged == 0 else { throw SoundChunkFailure(text: error.text) }
    }

    /// FFmpeg's account of a sound chunk that could not be made.
    struct SoundChunkFailure: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

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
                let chunk = job.delivering {
                    $0.output = path
                    $0.chunk = part
                }
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
        // The sound chunk, when the video has sound: of this job, and AAC.
        var sound: String?
        if hasSound(job) {
            let path = soundFile(of: job.output)
            var info = FileManager.default.fileExists(atPath: path) ? try Info(path: path) : nil
            if job.resume, info?.fingerprint != fingerprint {
                if cancellation?.isCancelled == true { throw ExportError.cancelled }
                _ = try renderSound(job.delivering { $0.overwrite = true }, fingerprint: fingerprint)
                rendered.append(path)
                progress?(path)
                info = try Info(path: path)
            }
            if let info {
                if info.fingerprint != fingerprint {
                    problems.append("\(path): a sound chunk of another job (fingerprint \(info.fingerprint.isEmpty ? "none" : info.fingerprint), this job's \(fingerprint)): render it again with --chunk sound and the same story and options")
                } else if info.chunk != "sound" || info.codec != "aac" {
                    problems.append("\(path): says it is chunk '\(info.chunk)' of \(info.codec.isEmpty ? "no stream" : info.codec), expected the sound chunk ('sound', AAC)")
                }
            } else {
                problems.append("\(path): missing: the sound chunk was not rendered (segue render --chunk sound, or the last task of --chunk auto)")
            }
            sound = path
        }
        guard problems.isEmpty else {
            throw ExportError.chunk(problems.count == 1 ? problems[0] : "\(problems.count) chunks cannot be joined into \(job.output):\n" + problems.map { "  " + $0 }.joined(separator: "\n"))
        }
        if cancellation?.isCancelled == true { throw ExportError.cancelled }
        let parts = filled.map { (path: $0.path, start: $0.range.lowerBound) }
        try write(job, chunks: parts, sound: sound, frames: total, fingerprint: fingerprint)
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
    /// the sound chunk's packets (`sound`), copied.
    static func write(_ job: Job, chunks: [(path: String, start: Int)], sound: String?, frames: Int, fingerprint: String) throws {
        let file = try StagedFile(target: job.output, replace: job.overwrite || job.resume)
        var error = SegueAVError()
        let paths = chunks.map { strdup($0.path) }
        defer { paths.forEach { free($0) } }
        let starts = chunks.map { Int64($0.start) }
        let status = file.temporary.withCString { path in
            fingerprint.withCString { tag in "mp4".withCString { mp4 in withOptionalCString(sound) { sound in
                paths.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
                    starts.withUnsafeBufferPointer { starts in
                        var config = SegueJoinConfig(path: path, format_name: mp4, chunks: names.baseAddress, starts: starts.baseAddress,
                                                     count: Int32(chunks.count), fps_num: Int32(job.preset.fps.numerator),
                                                     fps_den: Int32(job.preset.fps.denominator), frames: Int64(frames),
                                                     fingerprint: tag, sound: sound)
                        return segue_join(&config, &error)
                    }
                }
            } } }
        }
        guard status == 0 else {
            file.discard()
            throw ExportError.encoder(path: job.output, reason: "joining the chunks: \(error.text)")
        }
        try file.commit()
    }
}
