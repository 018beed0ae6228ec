import Foundation
import Segue

/// The preview's state, kept alive between edits: the last story that read, its proxy video
/// (segments rendered once per key and joined by copy), the errors of the last read that
/// failed, and the page's listeners. A thread of its own watches the story's files and
/// renders again what an edit changed; the server only reads.
final class PreviewSession: Sendable {
    let settings: PreviewSettings
    /// Where the segments, sound and pictures are kept while the server runs.
    let work: String

    /// What the last story that read made.
    struct Good: Sendable {
        var job: Job
        var proxyJob: Job
        var segments: [Segments.Segment]
        var proxy: Data
        var description: StoryDescription
    }

    struct State: Sendable {
        var good: Good?
        var errors: [String] = []
        /// Bumped at each read, good or not.
        var version = 0
        var row = 0
        var rowsAsked = false
        var files: [String] = []
        var export = ExportStatus()
        var listeners: [Int: AsyncStream<String>.Continuation] = [:]
        var nextListener = 0
        var stopped = false
        /// What the last build did, for the page and the bench.
        var lastBuild = BuildReport()
        /// The pictures kept decoded between builds (`SharedPictures`), and their files' stamps.
        var pictures: (scope: Int, stamps: [String: FileStamp])?
    }

    let state: Locked<State>
    /// The music's waveform, by what it was read from.
    let levels = Locked<(key: String, values: [Float])?>(nil)
    /// Slides' thumbnails by segment key.
    let thumbnails = Locked<[String: [UInt8]]>([:])
    /// Full frames being drawn or waiting for a thread (`frame(_:)`), at most `framesQueued`.
    let framesAsked = Locked(0)
    /// The template's rows, read once at start (nil without `--data`).
    let rows: TemplateData?

    init(settings: PreviewSettings) throws {
        self.settings = settings
        rows = try settings.data.map(TemplateData.load)
        work = NSTemporaryDirectory() + "segue-preview-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        state = Locked(State(files: [settings.story] + (settings.data.map { [$0] } ?? [])))
    }

    /// The current row's values (none without `--data`).
    func rowValues(_ row: Int) -> [String: String] {
        guard let rows, rows.rows.indices.contains(row) else { return [:] }
        return rows.rows[row].values
    }

    /// Watches the story's files on a thread of its own until `stop`, building again after
    /// each change (and once at the start).
    func startWatching() {
        Workers.start { [self] in
            var seen: [String: FileStamp] = [:]
            var first = true
            while true {
                let (files, stopped, rowAsked) = state.withLock { s -> ([String], Bool, Bool) in
                    defer { s.rowsAsked = false }
                    return (s.files, s.stopped, s.rowsAsked)
                }
                if stopped { return }
                let now = Dictionary(uniqueKeysWithValues: files.map { ($0, FileStamp($0)) })
                if !first, !rowAsked, now != seen {
                    // A file being saved (an editor that empties it, then writes it) is read
                    // once it has stayed the same for a poll, not halfway.
                    usleep(UInt32(settings.poll * 1_000_000))
                    if Dictionary(uniqueKeysWithValues: files.map { ($0, FileStamp($0)) }) != now { continue }
                }
                if first || now != seen || rowAsked {
                    first = false
                    seen = now
                    build()
                    // The files the story names now (they may have changed with it).
                    let after = state.withLock { $0.files }
                    if after != files { seen = Dictionary(uniqueKeysWithValues: after.map { ($0, FileStamp($0)) }) }
                }
                usleep(UInt32(settings.poll * 1_000_000))
            }
        }
    }

    func stop() {
        let listeners = state.withLock { s -> [AsyncStream<String>.Continuation] in
            s.stopped = true
            return Array(s.listeners.values)
        }
        listeners.forEach { $0.finish() }
        if let scope = state.withLock({ $0.pictures?.scope }) { SharedPictures.release(scope) }
        try? FileManager.default.removeItem(atPath: work)
    }

    /// Reads the story again and renders what changed; on an error keeps the last good preview.
    func build() {
        let start = DispatchTime.now()
        let row = state.withLock { $0.row }
        var report = BuildReport()
        do {
            let (job, story) = try settings.load(vars: rowValues(row), output: work + "/proxy.mp4", format: .mp4)
            let proxyJob = try job.proxy(settings.proxyScale, output: work + "/proxy.mp4")
            try proxyJob.validate()
            keepPictures(of: job)
            let (segments, soundKey) = try Segments.plan(of: proxyJob)
            var parts: [(path: String, start: Int)] = []
            for segment in segments where !segment.frames.isEmpty {
                let path = segmentFile(segment.key)
                if !FileManager.default.fileExists(atPath: path) {
                    try Segments.render(proxyJob, frames: segment.frames, to: path)
                    report.rendered += 1
                }
                parts.append((path, segment.frames.lowerBound))
            }
            report.segments = segments.count
            var sound: String?
            if let key = soundKey {
                let folder = work + "/sound-" + Self.name(key)
                sound = folder + "/proxy.chunks/sound.m4a"
                if !FileManager.default.fileExists(atPath: sound!) {
                    sound = try Segments.renderSound(proxyJob, in: folder)
                    report.soundRendered = true
                }
            }
            let joined = work + "/joined.mp4"
            try Segments.join(proxyJob, segments: parts, sound: sound, to: joined)
            let proxy = try Data(contentsOf: URL(fileURLWithPath: joined))
            try? FileManager.default.removeItem(atPath: joined)
            report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            let files = watchedFiles(story: story, job: job)
            let levels = try musicLevels(job)
            state.withLock { s in
                s.version += 1
                var description = StoryDescription(job: job, proxy: proxyJob, story: story, segments: segments, version: s.version,
                                                   storyPath: settings.story, rows: rows, row: row)
                if let music = description.lanes.firstIndex(where: { $0.kind == "music" }) { description.lanes[music].level = levels }
                s.good = Good(job: job, proxyJob: proxyJob, segments: segments, proxy: proxy, description: description)
                s.errors = []
                s.files = files
                s.lastBuild = report
            }
            prune(keeping: Set(segments.map(\.key)), sound: sound)
        } catch {
            report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            state.withLock { s in
                s.version += 1
                s.errors = [Self.message(error)]
                s.lastBuild = report
                if !s.files.contains(settings.story) { s.files.append(settings.story) }
            }
        }
        publish("update")
    }

    /// Keeps `job`'s still pictures decoded for the next builds and frames; a picture whose
    /// file changed is let go first, so that it is decoded again.
    func keepPictures(of job: Job) {
        let stamps = Dictionary(BatchRunner.stillPictures(of: job).map { ($0, FileStamp($0)) }) { a, _ in a }
        state.withLock { s in
            let old = s.pictures
            guard old?.stamps != stamps else { return }
            // The unchanged ones stay through the change; the changed ones go.
            let unchanged = Set(stamps.keys.filter { old?.stamps[$0] == stamps[$0] })
            let bridge = SharedPictures.share(unchanged)
            if let old { SharedPictures.release(old.scope) }
            s.pictures = (SharedPictures.share(Set(stamps.keys)), stamps)
            SharedPictures.release(bridge)
        }
    }

    /// The music's waveform for the page, 400 peaks over the video, read again only when the
    /// music's file or placing changes.
    func musicLevels(_ job: Job) throws -> [Float] {
        let music = job.soundtrack.music
        guard job.format.hasSound, let file = music.file else { return [] }
        let seconds = job.preset.fps.time(ofFrame: job.timeline.frameCount)
        let stamp = FileStamp(file)
        let key = "\(file) \(stamp.inode) \(stamp.size) \(stamp.seconds).\(stamp.nanoseconds) \(music.start) \(music.loop) \(seconds)"
        if let known = levels.withLock({ $0?.key == key ? $0?.values : nil }) { return known }
        let values = try job.soundtrack.musicLevels(seconds: seconds, count: 400)
        levels.withLock { $0 = (key, values) }
        return values
    }

    /// An error as the command line prints it.
    static func message(_ error: any Error) -> String { "segue: error: \(error)" }

    func segmentFile(_ key: String) -> String { work + "/segment-" + Self.name(key) + ".mp4" }

    /// A key's hex digits, for a file name.
    static func name(_ key: String) -> String { String(key.dropFirst("sha256:".count).prefix(32)) }

    /// Removes the segments and sound no longer used (the page holds the joined proxy).
    func prune(keeping keys: Set<String>, sound: String?) {
        let keep = Set(keys.map { "segment-" + Self.name($0) + ".mp4" })
        let soundFolder = sound.map { URL(fileURLWithPath: $0).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: work)) ?? [] {
            let stale = (name.hasPrefix("segment-") && !keep.contains(name)) || (name.hasPrefix("sound-") && name != soundFolder)
            if stale { try? FileManager.default.removeItem(atPath: work + "/" + name) }
        }
    }

    /// Every file the story reads: the story, a preset file, the pictures and clips, caption,
    /// sticker, font, music and voice files, and the template's data.
    func watchedFiles(story: Story, job: Job) -> [String] {
        var files: [String] = [settings.story]
        if let data = settings.data { files.append(data) }
        // The preset's files, and those they extend (their values say which file they are from).
        if let preset = settings.preset ?? story.preset, let node = try? settings.library.node(for: preset) { Self.collectOrigins(node, into: &files) }
        files += job.inputs
        var nodes = story.settings.map(\.value) + [story.overlays, story.captions, story.voice].compactMap { $0 }
        for slide in story.slides { nodes += [slide.overlays, slide.transition].compactMap { $0 } }
        for node in nodes { Self.collectFiles(node, into: &files) }
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }
    }

    /// The scalars of `node` that name files (resolved already, as a story's are).
    static func collectFiles(_ node: ConfigNode, into files: inout [String]) {
        switch node.value {
        case let .scalar(text, _):
            var folder: ObjCBool = false
            if text.contains("/"), FileManager.default.fileExists(atPath: text, isDirectory: &folder), !folder.boolValue { files.append(text) }
        case let .sequence(items): items.forEach { collectFiles($0, into: &files) }
        case let .mapping(pairs): pairs.forEach { collectFiles($0.value, into: &files) }
        }
    }

    /// The files `node`'s values were read from (their origins name them as "preset PATH");
    /// the caller keeps each once.
    static func collectOrigins(_ node: ConfigNode, into files: inout [String]) {
        if case let .file(name, _) = node.origin {
            let path = name.hasPrefix("preset ") ? String(name.dropFirst("preset ".count)) : name
            if FileManager.default.isReadableFile(atPath: path) { files.append(path) }
        }
        switch node.value {
        case .scalar: break
        case let .sequence(items): items.forEach { collectOrigins($0, into: &files) }
        case let .mapping(pairs): pairs.forEach { collectOrigins($0.value, into: &files) }
        }
    }

    /// Picks row `row` of the template's data; the watcher builds it next.
    func pick(row: Int) throws {
        guard let rows else { throw PreviewError.noRows }
        guard rows.rows.indices.contains(row) else { throw PreviewError.noSuchRow(row, count: rows.rows.count) }
        state.withLock {
            $0.row = row
            $0.rowsAsked = true
        }
    }

    // MARK: The page's listeners

    /// A stream of server-sent events, ended when the page goes or the server stops.
    func listen() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = state.withLock { s -> Int in
            s.nextListener += 1
            s.listeners[s.nextListener] = continuation
            return s.nextListener
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
        return stream
    }

    /// Tells every page: `event` with the current version.
    func publish(_ event: String, data: String? = nil) {
        let (listeners, version) = state.withLock { (Array($0.listeners.values), $0.version) }
        let text = "event: \(event)\ndata: \(data ?? "{\"version\":\(version)}")\n\n"
        for listener in listeners { listener.yield(text) }
    }
}

/// A file's identity and content time: an edit in place changes the time or size, a new file
/// renamed over the old one the inode.
struct FileStamp: Equatable, Sendable {
    var inode: UInt64 = 0
    var size: Int64 = -1
    var seconds: Int = 0
    var nanoseconds: Int = 0

    init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// What one build did.
struct BuildReport: Codable, Sendable {
    var segments = 0
    var rendered = 0
    var soundRendered = false
    var seconds = 0.0
}

enum PreviewError: Error, CustomStringConvertible {
    case noRows
    case noSuchRow(Int, count: Int)

    var description: String {
        switch self {
        case .noRows: return "this preview has no rows: start it with --data FILE"
        case let .noSuchRow(row, count): return "row \(row + 1): the data has \(count) rows"
        }
    }
}
