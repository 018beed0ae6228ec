/// A rectangle of whole pixels: `x..<x + width` by `y..<y + height`.
public struct PixelRegion: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    var maxX: Int { x + width }
    var maxY: Int { y + height }
    var area: Int { width * height }

    /// The smallest region holding both.
    func union(_ other: PixelRegion) -> PixelRegion {
        let left = min(x, other.x), top = min(y, other.y)
        return PixelRegion(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    func contains(_ other: PixelRegion) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// The part of it within a `width` x `height` picture; nil when none is.
    func clamped(width: Int, height: Int) -> PixelRegion? {
        let left = max(0, x), top = max(0, y), right = min(width, maxX), bottom = min(height, maxY)
        guard right > left && bottom > top else { return nil }
        return PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The pixels that resampling the part `crop` (pixels, fractions allowed) of a picture
    /// reads, whatever size it is drawn at (`FilterTaps.reads`); nil when it reads none.
    static func read(by crop: Rect, width: Int, height: Int) -> PixelRegion? {
        guard width > 0, height > 0 else { return nil }
        let columns = FilterTaps.reads(inputCount: width, from: crop.minX, length: crop.width)
        let rows = FilterTaps.reads(inputCount: height, from: crop.minY, length: crop.height)
        return PixelRegion(x: columns.low, y: rows.low, width: columns.high - columns.low + 1, height: rows.high - rows.low + 1)
            .clamped(width: width, height: height)
    }

    /// The stored region that a picture stored as `width` x `height` and seen upright by
    /// `orientation` turns into this upright region.
    func stored(by orientation: Orientation, width: Int, height: Int) -> PixelRegion {
        let a = orientation.source(x: x, y: y, width: width, height: height)
        let b = orientation.source(x: maxX - 1, y: maxY - 1, width: width, height: height)
        return PixelRegion(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }

    public var description: String { "\(width)x\(height) at (\(x), \(y))" }
}

/// The pixels of a source picture that the pictures drawn of it read: the whole picture, or
/// the part of it they read (a photo filled into a page of another shape shows a third of
/// its width, and only that third is converted).
struct SourcePixels: Sendable {
    let image: Image
    /// Where `image` lies in the whole picture.
    let region: PixelRegion
    let wholeWidth: Int
    let wholeHeight: Int

    init(whole image: Image) {
        self.init(image: image, region: PixelRegion(x: 0, y: 0, width: image.width, height: image.height),
                  wholeWidth: image.width, wholeHeight: image.height)
    }

    init(image: Image, region: PixelRegion, wholeWidth: Int, wholeHeight: Int) {
        precondition(image.width == region.width && image.height == region.height)
        self.image = image
        self.region = region
        self.wholeWidth = wholeWidth
        self.wholeHeight = wholeHeight
    }

    var isWhole: Bool { region.area == wholeWidth * wholeHeight }

    /// Whether it holds every pixel that resampling `crop` reads.
    func holds(_ crop: Rect) -> Bool {
        guard let needed = PixelRegion.read(by: crop, width: wholeWidth, height: wholeHeight) else { return isWhole }
        return region.contains(needed)
    }

    /// The part `crop` of the whole picture resampled to `width` x `height`: the pixels that
    /// the whole picture's `Image.resampled` gives.
    func resampled(from crop: Rect, width: Int, height: Int, threads: Int) -> Image {
        if isWhole { return image.resampled(from: crop, width: width, height: height, threads: threads) }
        return image.resampled(asPart: region, ofWidth: wholeWidth, height: wholeHeight, from: crop, width: width, height: height, threads: threads)
    }
}
