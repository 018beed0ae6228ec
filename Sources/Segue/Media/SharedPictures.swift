import CSegueAV
import Foundation

/// The still pictures that several jobs of one process draw (a template's logo, background or
/// sticker, a manifest's shared photo): each is decoded once, when a job first needs it, and
/// kept until the batch lets go of them; any other picture is decoded by each job that needs it.
///
/// Each batch running shares its own set (`share`, then `release`): two batches at once in one
/// process keep each other's pictures, and a picture goes once no running batch shares it.
public enum SharedPictures {
    /// What one running batch shares, and how each of its pictures was used.
    private struct Scope {
        var paths: Set<String>
        var decoded: [String: Int] = [:], asked: [String: Int] = [:]
    }
    private struct State {
        /// The pictures each running batch shares, by the number `share` gave it.
        var scopes: [Int: Scope] = [:]
        var nextScope = 0
        /// Each shared picture kept, or being decoded by the job that first asked for it.
        var images: [String: Promise<Image>] = [:]

        func isShared(_ path: String) -> Bool { scopes.values.contains { $0.paths.contains(path) } }

        /// Counts a use of `path`, and a decode, in every batch that shares it.
        mutating func count(_ path: String, decoded: Bool) {
            for key in scopes.keys where scopes[key]!.paths.contains(path) {
                scopes[key]!.asked[path, default: 0] += 1
                if decoded { scopes[key]!.decoded[path, default: 0] += 1 }
            }
        }
    }
    private static let state = Locked(State())

    /// Keeps the pictures at `paths` (canonical, as `Paths.canonical` gives) once decoded, until
    /// `release` is called with the number returned.
    public static func share(_ paths: Set<String>) -> Int {
        state.withLock { state in
            state.nextScope += 1
            state.scopes[state.nextScope] = Scope(paths: paths)
            return state.nextScope
        }
    }

    /// Lets go of the pictures that `share` kept for `scope` and no other running batch
    /// shares; says how each was used while the batch ran, in the order of their paths.
    @discardableResult
    public static func release(_ scope: Int) -> [SharedInput] {
        state.withLock { state in
            let released = state.scopes.removeValue(forKey: scope)
            for path in state.images.keys where !state.isShared(path) { state.images[path] = nil }
            guard let released else { return [] }
            return released.paths.sorted().map { path in
                SharedInput(file: path, kind: .picture, decoded: released.decoded[path, default: 0], uses: released.asked[path, default: 0])
            }
        }
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
            if let kept = state.images[path] {
                state.count(path, decoded: false)
                return (kept, false)
            }
            let pending = Promise<Image>()
            state.images[path] = pending
            state.count(path, decoded: true)
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
    /// The files kept, and how many times each had been decoded when `keep` began keeping it.
    public struct Kept: Sendable {
        fileprivate var decodedBefore: [String: Int]
    }

    /// Keeps the sound of the files at `paths` once decoded, until `release`.
    public static func keep(_ paths: Set<String>) -> Kept {
        for path in paths { segue_sound_keep(path, 1) }
        return Kept(decodedBefore: Dictionary(uniqueKeysWithValues: paths.map { ($0, Int(segue_sound_decodes($0))) }))
    }

    /// Lets go of what `keep` kept; says how many times each file was decoded meanwhile (by
    /// every job of the process that played it), in the order of their paths.
    @discardableResult
    public static func release(_ kept: Kept) -> [SharedInput] {
        kept.decodedBefore.keys.sorted().map { path in
            segue_sound_keep(path, 0)
            return SharedInput(file: path, kind: .sound, decoded: Int(segue_sound_decodes(path)) - kept.decodedBefore[path]!, uses: nil)
        }
    }
}

/// An input several jobs of a batch share, and how it was used: decoded how many times, used
/// by how many pictures the jobs made (a sound's uses are not counted). A batch's summary
/// (`segue batch --report`) lists them.
public struct SharedInput: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case picture, sound }
    public var file: String
    public var kind: Kind
    public var decoded: Int
    public var uses: Int?
}

