import Dispatch
import Foundation
import Synchronization

/// Resolves pictures for the compositor: each source decoded once and each part resampled
/// once per size it is drawn at, never per frame. Safe to use from any number of threads: a
/// picture one thread is making is waited for by the others, not made twice.
///
/// `prepare` lets a caller resample ahead of need (the next screens, while the encoder works
/// on the first); `releaseSources(whoseKeysAreReady:)` lets go of a source's full-size pixels
/// once every size it is drawn at is made.
public final class PictureCache: Sendable {
    private enum Entry {
        case ready(Image)
        /// A picture one thread is making; others wait for it.
        case pending(Promise<Image>)
    }

    /// The part of a source its pictures read, in a picture of `width` x `height`.
    private struct Plan {
        var region: PixelRegion
        var width: Int
        var height: Int
    }

    private struct State {
        var decoded: [PictureSource: SourcePixels]
        /// The pixels of each source that its planned pictures read (`plan(reading:sizes:)`).
        var planned: [PictureSource: Plan] = [:]
        var entries: [PictureKey: Entry] = [:]
        /// The keys of each animated source's pictures, oldest first.
        var recent: [PictureSource: [PictureKey]] = [:]
    }

    private let state: Locked<State>
    /// A source's pixels: at least the part asked for (nil: the whole picture). A source
    /// whose picture changes with time (`PictureSource.isAnimated`) is asked for the picture
    /// at `PictureKey.time`; only its last few prepared pictures are kept. Clips' pictures
    /// come with each frame's plan, never from the cache.
    private let load: @Sendable (PictureSource, PixelRegion?, Double) throws -> SourcePixels

    /// Prepared pictures kept of each animated source: frames composed side by side need a few.
    static let animatedKept = 4

    /// A cache over still inputs that `load` decodes by their place among the inputs, with
    /// those in `preloaded` already decoded (`load` decodes them again only if they are
    /// needed after they were let go).
    public convenience init(preloaded: [Int: Image] = [:], load: @escaping @Sendable (Int) throws -> Image) {
        self.init(preloaded: Dictionary(uniqueKeysWithValues: preloaded.map { (PictureSource.still($0), $1) })) { source, _, _ in
            guard case let .still(input) = source else { preconditionFailure("no picture for \(source)") }
            return SourcePixels(whole: try load(input))
        }
    }

    /// A cache over any sources, with `load` asked for the part of a source that its pictures
    /// read, when it is known (`plan(reading:sizes:)`), and an animated source's picture at a time.
    init(preloaded: [PictureSource: Image] = [:], loadPart: @escaping @Sendable (PictureSource, PixelRegion?, Double) throws -> SourcePixels) {
        self.load = loadPart
        state = Locked(State(decoded: preloaded.mapValues(SourcePixels.init(whole:))))
    }

    /// A cache over images in memory, still input k being `images[k]`.
    public convenience init(_ images: [Image]) {
        self.init { images[$0] }
    }

    /// The prepared image for `key`, made now unless it is made or being made. A source
    /// that cannot be decoded gives its error.
    func image(_ key: PictureKey, threads: Int = 1) throws -> Image {
        precondition(key.source.clipSlide == nil, "a clip's pictures come with its frame's plan")
        let (entry, mine) = state.withLock { state -> (Entry, Bool) in
            if let entry = state.entries[key] { return (entry, false) }
            let entry = Entry.pending(Promise())
            state.entries[key] = entry
            return (entry, true)
        }
        switch entry {
        case let .ready(image):
            return image
        case let .pending(pending) where !mine:
            return try pending.wait()
        case let .pending(pending):
            let animated = key.source.isAnimated
            let outcome = Result {
                let full = animated ? try load(key.source, nil, key.time) : try source(key.source, holding: key.crop)
                guard key.effect != .none else { return full.resampled(from: key.crop, width: key.width, height: key.height, threads: threads) }
                let reduced = key.effect.reducedSize(width: key.width, height: key.height)
                return key.effect.apply(to: full.resampled(from: key.crop, width: reduced.width, height: reduced.height, threads: threads),
                                        width: key.width, height: key.height)
            }
            state.withLock { state in
                if case let .success(image) = outcome { state.entries[key] = .ready(image) } else { state.entries[key] = nil }
                guard animated, case .success = outcome else { return }
                state.recent[key.source, default: []].append(key)
                while let old = state.recent[key.source], old.count > PictureCache.animatedKept {
                    state.recent[key.source]!.removeFirst()
                    if case .ready = state.entries[old[0]] { state.entries[old[0]] = nil }
                }
            }
            pending.fulfil(outcome)
            return try outcome.get()
        }
    }

    /// The source's pixels that resampling `crop` reads, decoded once for every planned
    /// picture: the part they all read (`plan(reading:sizes:)`), or the whole.
    private func source(_ index: PictureSource, holding crop: Rect) throws -> SourcePixels {
        let (held, plan) = state.withLock { ($0.decoded[index], $0.planned[index]) }
        if let held, held.holds(crop) { return held }
        // A picture not planned for is decoded along with every planned one and what was held.
        let part = plan.flatMap { plan in
            PixelRegion.read(by: crop, width: plan.width, height: plan.height).map { needed in
                [plan.region, held?.region].compactMap { $0 }.reduce(needed) { $0.union($1) }
            }
        }
        let pixels = try load(index, part, 0)
        return state.withLock { state in
            if let existing = state.decoded[index], existing.holds(crop) { return existing }
            state.decoded[index] = pixels
            return pixels
        }
    }

    /// Makes each still source decoded from now on hold only the pixels that `keys` read
    /// (the pictures every screen draws), the sources' upright sizes given by `sizes` (nil:
    /// a source decoded whole, as a text's picture is drawn).
    func plan(reading keys: [PictureSource: Set<PictureKey>], sizes: (PictureSource) -> Size?) {
        let plans = keys.compactMapValues { keys -> Plan? in
            guard let source = keys.first?.source, !source.isAnimated, source.clipSlide == nil, let size = sizes(source) else { return nil }
            let width = Int(size.width), height = Int(size.height)
            // A picture reading no pixel at all is not planned for: its source is decoded whole.
            let reads = keys.compactMap { PixelRegion.read(by: $0.crop, width: width, height: height) }
            guard reads.count == keys.count, let first = reads.first else { return nil }
            return Plan(region: reads.dropFirst().reduce(first) { $0.union($1) }, width: width, height: height)
        }
        state.withLock { $0.planned.merge(plans) { _, new in new } }
    }

    /// Makes the prepared images of every still picture in `tree`, `threads` at a time.
    func prepare(_ tree: Layer, scale: Double, threads: Int) throws {
        try prepare(PictureCache.keys(in: tree, scale: scale), threads: threads)
    }

    /// Makes the prepared images of the still pictures among `keys`, `threads` at a time.
    func prepare(_ keys: some Sequence<PictureKey>, threads: Int) throws {
        let wanted = Set(keys.filter { $0.source.clipSlide == nil })
        // Those made already need nothing (nearly every frame's, once its screen is prepared).
        let keys = state.withLock { state -> [PictureKey] in
            wanted.filter { key in if case .ready = state.entries[key] { false } else { true } }
        }
        guard !keys.isEmpty else { return }
        // Fewer pictures than threads (a story's first screen is often one picture): the
        // threads left share each picture's rows.
        let each = max(1, threads / max(1, keys.count))
        _ = try parallelMap(keys, threads: threads) { try self.image($0, threads: each) }
    }

    /// Lets go of the full-size pixels of each source all of whose `keys` are made; a source
    /// is decoded again if a picture of it is needed later at another size.
    func releaseSources(whoseKeysAreReady keys: [PictureSource: Set<PictureKey>]) {
        state.withLock { state in
            for (source, needed) in keys where state.decoded[source] != nil && needed.allSatisfy({ key in
                if case .ready = state.entries[key] { return true } else { return false }
            }) {
                state.decoded[source] = nil
            }
        }
    }

    /// Lets go of every prepared picture and the full-size pixels of `sources` (stills no
    /// longer drawn); pictures being made are left to finish.
    func forget(sources: Set<PictureSource>) {
        guard !sources.isEmpty else { return }
        state.withLock { state in
            for source in sources { state.decoded[source] = nil }
            for (key, entry) in state.entries where sources.contains(key.source) {
                if case .ready = entry { state.entries[key] = nil }
            }
        }
    }

    /// The sources with a prepared picture.
    var preparedSources: Set<PictureSource> {
        state.withLock { state in Set(state.entries.compactMap { key, entry in if case .ready = entry { key.source } else { nil } }) }
    }

    /// The keys of every picture a tree draws.
    static func keys(in tree: Layer, scale: Double) -> [PictureKey] {
        tree.contentsPlans(scale: scale).map(\.key)
    }
}
