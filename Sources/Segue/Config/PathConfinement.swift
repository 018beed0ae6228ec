import Foundation

/// Folders the paths a file names must stay in: a service's inputs folders (`segue serve
/// --inputs`), where a story sent by a client may name only what is inside them. While one is
/// `current`, `Paths.resolve` checks each path it resolves (with its symbolic links followed)
/// and gives a path outside in place of one that leaves the folders: nothing outside is
/// opened, and the path named is kept (`refused`) for the error, which the caller reports with
/// the key that named it. Files sent with a request (`uploaded`) are found by the names they
/// were sent with, before the folders.
public final class PathConfinement: Sendable {
    /// The folders, canonical (symbolic links resolved), each ending in "/".
    public let folders: [String]
    /// Files sent with the request: the name a story gives each, and where it is kept.
    public let uploaded: [String: String]
    private let refusals = Locked<[String]>([])

    /// The task's confinement: set around the reading of what a client sent.
    @TaskLocal public static var current: PathConfinement?

    public init(folders: [String], uploaded: [String: String] = [:]) {
        // The sent files' folders, once each (a request may send a thousand files from one).
        let sentFolders = Set(uploaded.values.map { ($0 as NSString).deletingLastPathComponent }).sorted()
        self.folders = (folders + sentFolders).map { folder in
            let canonical = Paths.canonical(folder)
            return canonical.hasSuffix("/") ? canonical : canonical + "/"
        }
        self.uploaded = uploaded
    }

    /// Runs `body` (the reading of one request) with this confinement current, and with the
    /// file system taken as it was when each path was first looked at: a path the story and
    /// the job's checks both name is resolved once for the request.
    public func reading<T>(_ body: () throws -> T) throws -> T {
        try PathConfinement.$current.withValue(self) { try Paths.remembering(body) }
    }

    /// The file sent as `path` (a relative name, `./` or not), if one was.
    func upload(_ path: String) -> String? {
        guard !uploaded.isEmpty, !path.hasPrefix("/") else { return nil }
        return uploaded[path.hasPrefix("./") ? String(path.dropFirst(2)) : path]
    }

    /// The paths named that lead outside the folders, as they were written, in order.
    public var refused: [String] { refusals.withLock { $0 } }

    /// True when `path` (absolute, or relative to the working folder) is in one of the folders.
    public func admits(_ path: String) -> Bool {
        let canonical = Paths.canonical(path)
        return folders.contains { canonical.hasPrefix($0) || canonical + "/" == $0 }
    }

    /// `resolved` (named `named`) if it is admitted; otherwise a path that names nothing, with
    /// `named` kept for the error.
    func check(_ resolved: String, named: String) -> String {
        guard !admits(resolved) else { return resolved }
        refusals.withLock { if !$0.contains(named) { $0.append(named) } }
        return PathConfinement.nowhere
    }

    /// What a refused path becomes: no file, in no folder there can be.
    static let nowhere = "/nonexistent/segue-refused-path"
}
