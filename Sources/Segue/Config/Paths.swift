import Foundation

/// How the paths a file names are found: relative to the folder of the file that names them
/// (a story, a preset, a manifest, a template), with "." and "name/.." steps removed. Every
/// reader resolves its paths here.
enum Paths {
    /// `path` as named in a file in `folder`: itself when absolute (or when the file is in
    /// the working folder), else joined to the folder and normalized.
    /// While a `PathConfinement` is current, a name sent with the request is that file, and a
    /// path outside its folders resolves to nothing.
    static func resolve(_ path: String, in folder: String) -> String {
        if let sent = PathConfinement.current?.upload(path) { return sent }
        let resolved = path.hasPrefix("/") || folder.isEmpty ? path : normalized(folder + "/" + path)
        return PathConfinement.current?.check(resolved, named: path) ?? resolved
    }

    /// What `path` names when it is not a regular file ("a FIFO (a named pipe)", "a character
    /// device", "a folder", "a loop of symbolic links"), or nil for a regular file or nothing
    /// at all. Inputs are regular files: a FIFO or a device would block or never end, so each
    /// is refused before it is opened (the C layer checks again before it opens one).
    static func notRegular(_ path: String) -> String? {
        switch found(path) {
        case .nothing, .file: return nil
        case .folder: return "a folder"
        case let .other(what): return what
        }
    }

    /// What one look at `path` finds (its links followed); once per planning pass (`remembering`).
    enum Found: Equatable, Sendable {
        case nothing, file, folder
        /// Anything else, said as `notRegular` says it ("a FIFO (a named pipe)").
        case other(String)
    }

    static func found(_ path: String) -> Found {
        guard let memo else { return look(path) }
        if let known = memo.found.withLock({ $0[path] }) { return known }
        let found = look(path)
        memo.found.withLock { $0[path] = found }
        return found
    }

    private static func look(_ path: String) -> Found {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ELOOP ? .other("a loop of symbolic links") : .nothing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFIFO: return .other("a FIFO (a named pipe)")
        case S_IFCHR: return .other("a character device")
        case S_IFBLK: return .other("a block device")
        case S_IFSOCK: return .other("a socket")
        default: return .other("not a regular file")
        }
    }

    /// The text of the file at `path`, a `kind` of file ("manifest", "data file") read whole and
    /// so of at most `limit` bytes: refused, with the reason, when it is not a regular file,
    /// does not exist, is larger, or is not UTF-8.
    static func text(of path: String, limit: Int, kind: String) throws(PresetError) -> String {
        if let what = notRegular(path) { throw .unreadable(path, reason: "it is \(what), not a file") }
        guard FileManager.default.fileExists(atPath: path) else { throw .unreadable(path, reason: "no such file") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.intValue ?? 0
        guard size <= limit else { throw .unreadable(path, reason: "it is \(size) bytes, over the limit of \(limit) for a \(kind)") }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .unreadable(path, reason: "not a readable UTF-8 text file")
        }
        return text
    }

    /// A path with its "." and "name/.." steps removed.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != "..", !last.isEmpty { parts.removeLast(); continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return joined.isEmpty ? "." : joined
    }

    /// A path with symbolic links and "." and ".." resolved, for telling whether two name one file.
    /// Folders are resolved once while they stay the same folder (`FileIdentity`): a batch's
    /// hundred thousand outputs in one folder cost one resolution of it, not one each.
    static func canonical(_ path: String) -> String {
        guard let memo else { return canonical(path, links: 0) }
        if let known = memo.paths.withLock({ $0[path] }) { return known }
        WorkCounts.add(.fileLookups)
        let found = canonical(path, links: 0)
        memo.paths.withLock { $0[path] = found }
        return found
    }

    /// What was found about paths during one planning pass (`remembering`).
    final class Memo: Sendable {
        let paths = Locked<[String: String]>([:])
        let folders = Locked<[String: String]>([:])
        let identities = Locked<[String: FileIdentity?]>([:])
        let found = Locked<[String: Found]>([:])
    }

    @TaskLocal static var memo: Memo?

    /// Runs `body` (a batch's planning: thousands of rows naming the same folders and photos)
    /// with the file system taken as it was when each path was first looked at: a path's
    /// canonical form, a folder's, a file's identity are found once for the whole pass, not
    /// once per row. Outside it, every answer is the file system's of the moment.
    static func remembering<T>(_ body: () throws -> T) rethrows -> T {
        if memo != nil { return try body() }
        return try $memo.withValue(Memo()) { try body() }
    }

    /// The identity of the file at `path`, once per planning pass (`remembering`).
    static func identity(_ path: String) -> FileIdentity? {
        guard let memo else { return FileIdentity(path) }
        if let known = memo.identities.withLock({ $0[path] }) { return known }
        WorkCounts.add(.fileLookups)
        let found = FileIdentity(path)
        memo.identities.withLock { $0[path] = found }
        return found
    }

    private static func canonical(_ path: String, links: Int) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") where part != "." {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else { parts.append(part) }
        }
        guard let name = parts.popLast() else { return "/" }
        let file = "/" + parts.joined(separator: "/") + (parts.isEmpty ? "" : "/") + name
        // A plain name sits in its folder; a link at the end names its target from there.
        var info = stat()
        let folder = canonicalFolder(parts)
        if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            // A target that climbs out of a folder it named ("a/../b") is left to the file
            // system, as is a chain of links longer than the kernel follows.
            guard links < 40, let target = target(of: file),
                  !target.split(separator: "/").drop(while: { $0 == ".." || $0 == "." }).contains("..") else { return resolved(file) }
            return canonical(target.hasPrefix("/") ? target : folder + "/" + target, links: links + 1)
        }
        return folder + (folder == "/" ? "" : "/") + name
    }

    /// What the symbolic link at `path` names, as written in it.
    private static func target(of path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The file system's own resolution of `path`.
    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static let folders = ByFile<String>()

    /// The canonical path of the folder whose absolute path is `parts`: a folder that does not
    /// exist yet is its parent's and its name.
    private static func canonicalFolder(_ parts: [Substring]) -> String {
        guard let last = parts.last else { return "/" }
        let folder = "/" + parts.joined(separator: "/")
        if let known = memo?.folders.withLock({ $0[folder] }) { return known }
        var canonical = folders.value(of: folder, { resolved(folder) })
        if canonical == nil {
            let parent = canonicalFolder(Array(parts.dropLast()))
            canonical = parent + (parent == "/" ? "" : "/") + last
        }
        memo?.folders.withLock { $0[folder] = canonical }
        return canonical ?? folder
    }
}

/// What was found about files, each kept while its file stays the same file (`FileIdentity`).
final class ByFile<Value: Sendable>: Sendable {
    private let known = Locked<[String: (identity: FileIdentity, value: Value)]>([:])
    private let settledOnly: Bool

    /// `settledOnly`: what is found of a file changed in the last two seconds is not kept. A
    /// file's time is the clock's tick, so one written again within the tick it was read in
    /// may keep its identity; a value that must follow every change of content (a digest) is
    /// kept only once the file has been left alone for longer than any tick.
    init(settledOnly: Bool = false) { self.settledOnly = settledOnly }

    /// What `find` says of the file at `path`, found once while the file is unchanged; nil
    /// when there is no file there. Nothing is kept when `find` throws.
    func value(of path: String, _ find: () throws -> Value) rethrows -> Value? {
        guard let identity = Paths.identity(path) else { return nil }
        if let kept = known.withLock({ $0[path] }), kept.identity == identity { return kept.value }
        let value = try find()
        if !settledOnly || identity.isSettled {
            known.withLock {
                if $0.count >= 1 << 16 { $0.removeAll() }
                $0[path] = (identity, value)
            }
        }
        return value
    }
}

/// Which file a path names, and its version: its device, inode, size and modification time.
/// Equal identities are the same file, unchanged (as far as the file system tells).
struct FileIdentity: Equatable, Sendable {
    var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

    /// The identity of the file at `path`, or nil when it cannot be read.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }

    /// Whether the file was last changed more than two seconds ago (see `ByFile`).
    var isSettled: Bool { Double(seconds) + Double(nanoseconds) / 1e9 < Date().timeIntervalSince1970 - 2 }
}
