import CSegueAV
import Foundation

/// The still pictures that several jobs of one process draw (a template's logo, background or
/// sticker, a manifest's shared photo): each is decoded once, when a job first needs it, and
/// kept until the batch lets go of them; any other picture is decoded by each job that needs it.
///
/// Each batch running shares its own set (`share`, then `release`): two batches at once in one
/// process keep each other's pictures, and a picture goes once no running batch shares it.
public enum SharedPictures {
    private struct State {
        /// The pictures each running batch shares, by the number `share` gave it.
        var scopes: [Int: Set<String>] = [:]
        var nextScope = 0
        /// Each shared picture kept, or being decoded by the job that first asked for it.
        var images: [String: Promise<Image>] = [:]
        /// How many times each shared picture was decoded, and asked for, since the process began.
        var decoded: [String: Int] = [:], asked: [String: Int] = [:]

        func isShared(_ path: String) -> Bool { scopes.values.contains { $0.contains(path) } }
    }
    private static let state = Locked(State())

    /// Keeps the pictures at `paths` (canonical, as `Paths.canonical` gives) once decoded, until
    /// `release` is called with the number returned.
    public static func share(_ paths: Set<String>) -> Int {
        state.withLock { state in
            state.nextScope += 1
            state.scopes[state.nextScope] = paths
            return state.nextScope
        }
    }

    /// Lets go of the pictures that `share` kept for `scope` and no other running batch shares.
    public static func release(_ scope: Int) {
        state.withLock { state in
            state.scopes[scope] = nil
            for path in state.images.keys where !state.isShared(path) { state.images[path] = nil }
        }
    }

    /// How many times the shared picture at `path` was decoded, and asked for, since the
    /// process began.
    public static func counts(of path: String) -> (decoded: Int, asked: Int) {
        let path = Paths.canonical(path)
        return state.withLock { ($0.decoded[path, default: 0], $0.asked[path, default: 0]) }
    }

    /// Whether a running batch shares the picture at `path` (it is then decoded whole, once).
    static func isShared(_ path: String) -> Bool {
        guard state.withLock({ !$0.scopes.isEmpty }) else { return false }
        let path = Paths.canonical(path)
        return state.withLock { $0.isShared(path) }
    }

    /// The picture at `path`: kept if it is shared (made by `decode` once), else made.
    static func image(_ path: String, decode: () throws -> Image) throws -> Image {
        guard state.withLock({ !$0.scopes.isEmpty }) else { return try decode() }
        let path = Paths.canonical(path)
        // The first job to ask decodes it; jobs asking meanwhile (a storyboard made ahead
        // beside the running job, parallel jobs) wait for that one decode.
        let (kept, mine) = state.withLock { state -> (Promise<Image>?, Bool) in
            guard state.isShared(path) else { return (nil, false) }
            state.asked[path, default: 0] += 1
            if let kept = state.images[path] { return (kept, false) }
            let pending = Promise<Image>()
            state.images[path] = pending
            state.decoded[path, default: 0] += 1
            return (pending, true)
        }
        guard let kept else { return try decode() }
        guard mine else { return try kept.wait() }
        let outcome = Result { try decode() }
        if case .failure = outcome {
            // Not kept: a later job tries again and gives its own error.
            state.withLock { state in if state.images[path] === kept { state.images[path] = nil } }
        }
        kept.fulfil(outcome)
        return try outcome.get()
    }
}

/// The music and voice tracks that several jobs of one process play (a template's music): each
/// is decoded once, by the first job that plays it, whose samples the next jobs are given
/// (`segue_sound_keep`). A job sounds the same, byte for byte, whether it runs alone or not.
public enum SharedSounds {
    /// Keeps the sound of the files at `paths` once decoded, until `release`.
    public static func keep(_ paths: Set<String>) {
        for path in paths { segue_sound_keep(path, 1) }
    }

    /// Lets go of what `keep` kept.
    public static func release(_ paths: Set<String>) {
        for path in paths { segue_sound_keep(path, 0) }
    }

    /// How many times the kept file at `path` was decoded since the process began.
    public static func decodes(of path: String) -> Int { Int(segue_sound_decodes(path)) }
}

