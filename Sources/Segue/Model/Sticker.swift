import Foundation

/// The picture an overlay shows instead of words: a sticker on a page, or a logo on the
/// screen. A still picture (PNG, WebP, JPEG, ...) is decoded as inputs are (colour profile,
/// orientation); an animated one (GIF, APNG, animated WebP, WebM with alpha, ProRes 4444)
/// plays at its own frame timing, looping while it shows.
public struct Sticker: Hashable, Sendable {
    public var path: String
    /// The drawn width, a fraction of the page's width (the height follows the picture's
    /// shape); nil for `height`, or for the picture's own size in pixels.
    public var width: Double?
    /// The drawn height, a fraction of the page's height, when `width` is nil.
    public var height: Double?
    /// An animation starts again at its end; false holds its last frame.
    public var loop = true
    /// Frames in one pass (1 for a still), as its file says.
    public var frames = 1

    public init(path: String, width: Double? = nil, height: Double? = nil) {
        self.path = path
        self.width = width
        self.height = height
    }

    public var isAnimated: Bool { frames > 1 }

    /// The drawn size in whole pixels, for a picture `pixels` big on a page `page` points
    /// big at `scale` pixels per point.
    func drawnPixels(of pixels: Size, page: Size, scale: Double) -> (width: Int, height: Int) {
        let aspect = pixels.width / max(1, pixels.height)
        var w = pixels.width, h = pixels.height
        if let width { w = width * page.width * scale; h = w / aspect } else if let height { h = height * page.height * scale; w = h * aspect }
        return (max(1, Int(w.rounded())), max(1, Int(h.rounded())))
    }
}
