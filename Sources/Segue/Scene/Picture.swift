import Foundation

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

    public init(source: Int, size: Size, region: Rect? = nil) {
        self.source = source
        self.size = size
        self.region = region
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
        let key = PictureKey(source: picture.source, crop: crop, width: width, height: height)
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

/// Resolves pictures for the compositor: each source decoded once (on first need) and each
/// part resampled once per size it is drawn at, never per frame. Safe to use from any
/// number of threads: a picture being prepared by one thread is waited for by the others.
///
/// `prepare` lets a caller resample ahead of need (the next screens, while the encoder works
/// on the first); `release(source:)` lets go of a source's full-size pixels once every size
/// it is drawn at is made.
public final class PictureCache: @unchecked Sendable {
    private let condition = NSCondition()
    private let load: @Sendable (Int) throws -> Image
    private var decoded: [Int: Image] = [:]
    private var ready: [PictureKey: Image] = [:]
    private var inFlight: Set<PictureKey> = []
    private var failures: [Int: Error] = [:]

    /// A cache over sources that `load` decodes by index, with those in `preloaded` already
    /// decoded (`load` decodes them again only if they are needed after `release`).
    public init(preloaded: [Int: Image] = [:], load: @escaping @Sendable (Int) throws -> Image) {
        self.load = load
        decoded = preloaded
    }

    /// A cache over images in memory, source k being `images[k]`.
    public convenience init(_ images: [Image]) {
        self.init { images[$0] }
    }

    /// The prepared image for `key`, made now if no thread has made it yet. A source that
    /// cannot be decoded gives its error.
    func image(_ key: PictureKey) throws -> Image {
        condition.lock()
        while true {
            if let image = ready[key] { condition.unlock(); return image }
            if let error = failures[key.source] { condition.unlock(); throw error }
            if !inFlight.contains(key) { break }
            condition.wait()
        }
        inFlight.insert(key)
        condition.unlock()

        let result = Result { () throws -> Image in
            let full = try source(key.source)
            return full.resampled(from: key.crop, width: key.width, height: key.height)
        }
        condition.lock()
        inFlight.remove(key)
        switch result {
        case let .success(image): ready[key] = image
        case let .failure(error): failures[key.source] = error
        }
        condition.broadcast()
        condition.unlock()
        return try result.get()
    }

    /// The full-size source, decoded once.
    private func source(_ index: Int) throws -> Image {
        condition.lock()
        if let image = decoded[index] { condition.unlock(); return image }
        condition.unlock()
        // Two threads may race to decode the same source; the first result is kept.
        let image = try load(index)
        condition.lock()
        defer { condition.unlock() }
        if let existing = decoded[index] { return existing }
        decoded[index] = image
        return image
    }

    /// Makes the prepared images of every picture in `tree`, `threads` at a time.
    func prepare(_ tree: Layer, scale: Double, threads: Int) throws {
        let keys = Array(Set(PictureCache.keys(in: tree, scale: scale)))
        _ = try parallelMap(keys, threads: threads) { try self.image($0) }
    }

    /// Lets go of a source's full-size pixels; it is decoded again if needed later.
    func release(source: Int) {
        condition.lock()
        decoded[source] = nil
        condition.unlock()
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
