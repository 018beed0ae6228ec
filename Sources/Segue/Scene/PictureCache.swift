import Dispatch
import Foundation
import Synchronization

/// What a layer's contents show: one of a job's pictures, referred to rather than held.
/// The compositor resolves it when it composes a frame, through a `PictureCache`, at the
/// size the layer draws it.
public struct Picture: Hashable, Sendable {
    /// Which of the job's picture sources: input `source` (0-based).
    public var source: Int
    /// The source's size in pixels, upright.
    public var size: Size
    /// The part of the source shown, in its pixels; nil for all of it (as CALayer's contentsRect).
    public var region: Rect?
    /// For a clip, the clip time shown (seconds from the start of its part); nil for a still.
    public var time: Double?

    public init(source: Int, size: Size, region: Rect? = nil, time: Double? = nil) {
        self.source = source
        self.size = size
        self.region = region
        self.time = time
    }

    /// The size of what is shown: the region's, or the whole source's.
    public var shownSize: Size { region?.size ?? size }
}

/// A picture prepared for one layer: the source's part, resampled to the whole pixels the
/// layer draws it at (its bounds times the canvas scale, as a CALayer's backing store is
/// made at bounds times contentsScale), whatever transform the layer is under.
struct PictureKey: Hashable, Sendable {
    var source: Int
    /// The part of the source, in its pixels.
    var crop: Rect
    var width: Int
    var height: Int
    /// The source's time, for sources that change (clips); 0 for stills.
    var time: Double = 0

    /// The key of `picture` drawn in `bounds` (points) with `gravity` at `scale` pixels per
    /// point, and where the prepared image goes in `bounds`.
    static func plan(_ picture: Picture, in bounds: Rect, gravity: ContentsGravity, scale: Double) -> (key: PictureKey, destination: Rect) {
        let pixels = Rect(x: 0, y: 0, width: bounds.width * scale, height: bounds.height * scale)
        let shown = picture.shownSize
        let place = gravity.placement(of: shown, in: pixels)
        let width = PictureKey.length(place.destination.width, within: pixels.width)
        let height = PictureKey.length(place.destination.height, within: pixels.height)
        var crop = place.source
        if let region = picture.region { crop.origin.x += region.minX; crop.origin.y += region.minY }
        let key = PictureKey(source: picture.source, crop: crop, width: width, height: height, time: picture.time ?? 0)
        // The prepared image has the shape it is drawn with: a fill is already cropped, a fit
        // is placed by its whole pixels.
        let size = Size(width: Double(width), height: Double(height))
        let destination = gravity == .fit ? ContentsGravity.fit.placement(of: size, in: bounds).destination : bounds
        return (key, destination)
    }

    /// Whole pixels for a drawn length, with the parity of the length it is centered in, so
    /// a letterboxed image lands on whole pixels.
    static func length(_ length: Double, within outer: Double) -> Int {
        let whole = max(1, Int(outer.rounded()))
        var n = max(1, Int(length.rounded()))
        if n < whole, (whole - n) % 2 != 0 { n += length >= Double(n) ? 1 : -1 }
        return max(1, min(n, whole))
    }
}

/// Resolves pictures for the compositor: each source decoded once and each part resampled
/// once per size it is drawn at, never per frame. Safe to use from any number of threads: a
/// picture one thread is making is waited for by the others, not made twice.
///
/// `prepare` lets a caller resample ahead of need (the next screens, while the encoder works
/// on the first); `releaseSources(whoseKeysAreReady:)` lets go of a source's full-size pixels
/// once every size it is drawn at is made.
public final class PictureCache: Sendable {
    /// A picture one thread is making; others wait for it.
    private final class Pending: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let result = Locked<Result<Image, any Error>?>(nil)

        func fulfil(_ outcome: Result<Image, any Error>) {
            result.withLock { $0 = outcome }
            done.signal()
        }

        func wait() throws -> Image {
            done.wait()
            done.signal()   // let the next waiter through too
            return try result.withLock { $0! }.get()
        }
    }

    private enum Entry {
        case ready(Image)
        case pending(Pending)
    }

    private struct State {
        var decoded: [Int: Image]
        var entries: [PictureKey: Entry] = [:]
    }

    private let state: Locked<State>
    private let load: @Sendable (Int) throws -> Image
    /// Sources that are clips, whose pictures come from their feeds, frame by frame.
    private let feeds = Locked<[Int: ClipFeed]>([:])

    /// A cache over sources that `load` decodes by index, with those in `preloaded` already
    /// decoded (`load` decodes them again only if they are needed after they were let go).
    public init(preloaded: [Int: Image] = [:], load: @escaping @Sendable (Int) throws -> Image) {
        self.load = load
        state = Locked(State(decoded: preloaded))
    }

    /// A cache over images in memory, source k being `images[k]`.
    public convenience init(_ images: [Image]) {
        self.init { images[$0] }
    }

    /// The prepared image for `key`, made now unless it is made or being made. A source
    /// that cannot be decoded gives its error.
    func image(_ key: PictureKey, threads: Int = 1) throws -> Image {
        if let feed = feeds.withLock({ $0[key.source] }) { return try feed.image(key) }
        let (entry, mine) = state.withLock { state -> (Entry, Bool) in
            if let entry = state.entries[key] { return (entry, false) }
            let entry = Entry.pending(Pending())
            state.entries[key] = entry
            return (entry, true)
        }
        switch entry {
        case let .ready(image):
            return image
        case let .pending(pending) where !mine:
            return try pending.wait()
        case let .pending(pending):
            let outcome = Result { try source(key.source).resampled(from: key.crop, width: key.width, height: key.height, threads: threads) }
            state.withLock { state in
                if case let .success(image) = outcome { state.entries[key] = .ready(image) } else { state.entries[key] = nil }
            }
            pending.fulfil(outcome)
            return try outcome.get()
        }
    }

    /// The full-size source, decoded once.
    private func source(_ index: Int) throws -> Image {
        if let image = state.withLock({ $0.decoded[index] }) { return image }
        let image = try load(index)
        return state.withLock { state in
            if let existing = state.decoded[index] { return existing }
            state.decoded[index] = image
            return image
        }
    }

    /// Makes source `source`'s pictures come from `feed`, a clip's.
    func attach(_ feed: ClipFeed, source: Int) {
        feeds.withLock { $0[source] = feed }
    }

    /// Whether `source` is a clip.
    func isClip(_ source: Int) -> Bool { feeds.withLock { $0[source] != nil } }

    /// Makes the prepared images of every still picture in `tree`, `threads` at a time.
    func prepare(_ tree: Layer, scale: Double, threads: Int) throws {
        let wanted = Set(PictureCache.keys(in: tree, scale: scale).filter { !isClip($0.source) })
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
    func releaseSources(whoseKeysAreReady keys: [Int: Set<PictureKey>]) {
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
    func forget(sources: Set<Int>) {
        guard !sources.isEmpty else { return }
        state.withLock { state in
            for source in sources { state.decoded[source] = nil }
            for (key, entry) in state.entries where sources.contains(key.source) {
                if case .ready = entry { state.entries[key] = nil }
            }
        }
    }

    /// The sources with a prepared picture.
    var preparedSources: Set<Int> {
        state.withLock { state in Set(state.entries.compactMap { key, entry in if case .ready = entry { key.source } else { nil } }) }
    }

    /// The keys of every picture a tree draws.
    static func keys(in tree: Layer, scale: Double) -> [PictureKey] {
        var keys: [PictureKey] = []
        func visit(_ layer: Layer) {
            if let picture = layer.contents {
                keys.append(PictureKey.plan(picture, in: layer.bounds, gravity: layer.contentsGravity, scale: scale).key)
            }
            layer.sublayers.forEach(visit)
        }
        visit(tree)
        return keys
    }
}
