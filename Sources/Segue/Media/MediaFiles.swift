import Foundation

/// The files transitions draw from, opened for a canvas and kept while the process runs: a
/// luma wipe's matte (`MatteFiles`), a GLSL file's program (`GLSLPrograms`).
struct MediaFiles: TransitionFiles {
    func matte(_ path: String, fill: Bool, invert: Bool, width: Int, height: Int, limits: Limits) throws -> any MatteSupply {
        try MatteFiles.shared.supply(path, fill: fill, invert: invert, width: width, height: height, limits: limits)
    }

    func program(_ path: String, width: Int, height: Int) throws -> any GLSLSupply {
        try GLSLPrograms.shared.program(path, width: width, height: height)
    }

    /// `transition` with the files it draws from opened for a `width` x `height` canvas (itself
    /// when it needs none); thrown what is wrong with them.
    static func opening(_ transition: any Transition, width: Int, height: Int, limits: Limits) throws -> any Transition {
        guard let needing = transition as? any FileTransition else { return transition }
        return try needing.opening(MediaFiles(), width: width, height: height, limits: limits)
    }
}
