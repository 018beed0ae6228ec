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
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
