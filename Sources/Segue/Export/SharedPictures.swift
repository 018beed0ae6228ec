import Foundation
import Synchronization

/// The still pictures that several jobs of one process draw (a template's logo, background or
/// sticker, a manifest's shared photo): each is decoded once, when a job first needs it, and
/// kept until the batch lets go of them; any other picture is decoded by each job that needs it.
public enum SharedPictures {
    private struct State {
        var paths: Set<String> = []
        var images: [String: Image] = [:]
        /// How many times a shared picture was decoded, and asked for, since the process began.
        var decoded = 0, asked = 0
    }
    private static let state = Mutex(State())

    /// Keeps the pictures at `paths` (canonical, as `Job.canonical` gives) once decoded, and
    /// lets go of any kept before.
    public static func share(_ paths: Set<String>) {
        state.withLock {
            $0.paths = paths
            $0.images = [:]
        }
    }

    /// How many shared pictures were decoded, and how many times they were asked for, since
    /// the process began.
    public static var counts: (decoded: Int, asked: Int) { state.withLock { ($0.decoded, $0.asked) } }

    /// The picture at `path`: kept if it is shared (made by `decode` once), else made.
    static func image(_ path: String, decode: () throws -> Image) throws -> Image {
        guard state.withLock({ !$0.paths.isEmpty }) else { return try decode() }
        let path = Job.canonical(path)
        let kept = state.withLock { state -> Image?? in
            guard state.paths.contains(path) else { return .none }
            state.asked += 1
            return .some(state.images[path])
        }
        switch kept {
        case .none: return try decode()
        case let .some(image?): return image
        case .some(nil):
            // Decoded outside the lock (two jobs at once may both decode it; one is kept).
            let image = try decode()
            return state.withLock { state in
                state.decoded += 1
                if let first = state.images[path] { return first }
                if state.paths.contains(path) { state.images[path] = image }
                return image
            }
        }
    }
}
