import Foundation

/// How the paths a file names are found: relative to the folder of the file that names them
/// (a story, a preset, a manifest, a template), with "." and "name/.." steps removed. Every
/// reader resolves its paths here.
enum Paths {
    /// `path` as named in a file in `folder`: itself when absolute (or when the file is in
    /// the working folder), else joined to the folder and normalized.
    static func resolve(_ path: String, in folder: String) -> String {
        path.hasPrefix("/") || folder.isEmpty ? path : normalized(folder + "/" + path)
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
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") where part != "." {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else { parts.append(part) }
        }
        guard let name = parts.popLast() else { return "/" }
        let file = "/" + parts.joined(separator: "/") + (parts.isEmpty ? "" : "/") + name
        // A link at the end is resolved by the file system; a plain name sits in its folder.
        var info = stat()
        if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { return resolved(file) }
        let folder = canonicalFolder(parts)
        return folder + (folder == "/" ? "" : "/") + name
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
        guard let canonical = folders.value(of: folder, { resolved(folder) }) else {
            let parent = canonicalFolder(Array(parts.dropLast()))
            return parent + (parent == "/" ? "" : "/") + last
        }
        return canonical
    }
}

/// What was found about files, each kept while its file stays the same file (`FileIdentity`).
final class ByFile<Value: Sendable>: Sendable {
    private let known = Locked<[String: (identity: FileIdentity, value: Value)]>([:])

    /// What `find` says of the file at `path`, found once while the file is unchanged; nil
    /// when there is no file there.
    func value(of path: String, _ find: () -> Value) -> Value? {
        guard let identity = FileIdentity(path) else { return nil }
        if let kept = known.withLock({ $0[path] }), kept.identity == identity { return kept.value }
        let value = find()
        known.withLock {
            if $0.count >= 1 << 16 { $0.removeAll() }
            $0[path] = (identity, value)
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
}
