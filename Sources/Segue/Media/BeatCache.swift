import CSegueAV
import Foundation

/// Beat grids found once per sound file (`BeatGrid.analyse`), kept by the file's content:
/// in memory for the process (every row of a template, every job of a batch over the same
/// music), and on disk under `folder` (every chunk of a long video rendered on this machine,
/// or on any that shares the folder, and every later render of the same music). A file
/// changed since it was analysed has another digest, and is analysed again; so is a grid kept
/// by another version of Segue. The digest of a file is kept by its stamp (device, inode,
/// size, modification and change times), so an unchanged file is not hashed again.
public enum BeatCache {
    /// The cache's folder: `$SEGUE_CACHE/beats`, else `$XDG_CACHE_HOME/segue/beats`, else
    /// `~/.cache/segue/beats`; nil when none can be named.
    public static var folder: String? {
        let environment = ProcessInfo.processInfo.environment
        func named(_ variable: String) -> String? {
            guard let value = environment[variable], !value.isEmpty else { return nil }
            return value
        }
        if let root = named("SEGUE_CACHE") { return root + "/beats" }
        if let root = named("XDG_CACHE_HOME") { return root + "/segue/beats" }
        if let home = named("HOME") { return home + "/.cache/segue/beats" }
        return nil
    }

    /// The grid of `path`'s sound, analysed only when neither this process nor the folder
    /// has it.
    public static func grid(of path: String) throws -> BeatGrid {
        let stamp = Stamp(path)
        let key = stamp.map { "\(Paths.canonical(path)) \($0.text)" }
        return try analysing.withLock { known in
            if let key, let grid = known[key] { return grid }
            guard FileManager.default.fileExists(atPath: path) else { throw ExportError.beats(path: path, reason: "no such file") }
            let file = self.file(for: path, stamp: stamp)
            if let file, let data = FileManager.default.contents(atPath: file), let grid = try? JSONDecoder().decode(BeatGrid.self, from: data) {
                if let key { known[key] = grid }
                return grid
            }
            let grid = try BeatGrid.analyse(path)
            WorkCounts.add(.soundsAnalysed)
            if let key { known[key] = grid }
            if let file, let data = try? JSONEncoder().encode(grid) { keep(data, at: file) }
            return grid
        }
    }

    /// Where the grid of `path`'s content is kept in `folder`; nil when there is no folder or
    /// the file cannot be read.
    public static func file(for path: String) -> String? { file(for: path, stamp: Stamp(path)) }

    private static func file(for path: String, stamp: Stamp?) -> String? {
        guard let folder, let digest = digest(of: path, stamp: stamp, in: folder) else { return nil }
        return "\(folder)/\(digest)-\(version).json"
    }

    /// A file as it is now: its device and inode, size, and times of modification and of
    /// change (which any write moves, and no one can set back), to the nanosecond.
    struct Stamp {
        let text: String

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            text = "\(info.st_dev)-\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
        }
    }

    /// The file's SHA-256 in hex; nil when it cannot be read (the analysis then says why). The
    /// digest of a file whose stamp is unchanged is read from the folder's `stamps/`: a long
    /// track is hashed once, not by every render that finds its grid.
    private static func digest(of path: String, stamp: Stamp?, in folder: String) -> String? {
        let known = stamp.map { "\(folder)/stamps/\($0.text)" }
        if let known, let data = FileManager.default.contents(atPath: known), data.count == 64,
           data.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) {
            return String(decoding: data, as: UTF8.self)
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        var error = SegueAVError()
        guard segue_sha256_file(path, &bytes, &error) == 0 else { return nil }
        let digest = bytes.map { String(format: "%02x", $0) }.joined()
        if let known { keep(Data(digest.utf8), at: known) }
        return digest
    }

    /// Grids found in this process, by path, size and time of change. The lock is held while a
    /// file is analysed: two jobs over the same music wait for one analysis.
    private static let analysing = Locked([String: BeatGrid]())

    /// What a kept grid was made by: another version's is not read.
    static let version = "segue-\(SegueVersion.number)-grid-2"

    /// Writes `data` at `file` whole (a temporary file renamed), or not at all: a cache that
    /// cannot be written costs the next run an analysis, nothing else.
    private static func keep(_ data: Data, at file: String) {
        let folder = (file as NSString).deletingLastPathComponent
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else { return }
        let part = "\(file).\(ProcessInfo.processInfo.processIdentifier).part"
        guard FileManager.default.createFile(atPath: part, contents: data) else { return }
        if rename(part, file) != 0 { unlink(part) }
    }
}
