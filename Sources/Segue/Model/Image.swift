/// An immutable bitmap of premultiplied RGBA pixels, 8 bits per channel, in sRGB.
///
/// Each pixel is one `UInt32` whose bytes in memory are R, G, B, A (little-endian:
/// red in the low byte). Images are shared by reference and never change after creation,
/// so any number of compositor threads may read one at once.
public final class Image: Sendable {
    public let width: Int
    public let height: Int
    /// Premultiplied RGBA, row after row, `width` pixels a row.
    public let pixels: [UInt32]
    /// True when every pixel has alpha 255, which lets the compositor copy instead of blend.
    public let isOpaque: Bool

    public convenience init(width: Int, height: Int, pixels: [UInt32]) {
        self.init(width: width, height: height, pixels: pixels, isOpaque: pixels.allSatisfy { $0 >> 24 == 0xFF })
    }

    /// An image whose opacity is already known (a decoder found it while writing the pixels).
    init(width: Int, height: Int, pixels: [UInt32], isOpaque: Bool) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.isOpaque = isOpaque
    }

    /// A `width` x `height` picture whose pixels are never read: it stands in for one not
    /// made yet in a draw list that is looked at, never drawn.
    init(standInWidth width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = []
        isOpaque = true
    }

    /// An image of one color.
    public convenience init(width: Int, height: Int, color: Color) {
        self.init(width: width, height: height, pixels: [UInt32](repeating: color.premultipliedPixel, count: width * height))
    }

    public var size: Size { Size(width: Double(width), height: Double(height)) }

    public subscript(x: Int, y: Int) -> UInt32 { pixels[y * width + x] }
}

/// Turns one premultiplied RGBA pixel back into straight alpha, rounding each channel.
@inline(__always)
func unpremultiply(_ p: UInt32) -> UInt32 {
    let a = p >> 24
    if a == 255 || a == 0 { return a == 0 ? 0 : p }
    @inline(__always) func div(_ c: UInt32) -> UInt32 { min(255, (c * 255 + a / 2) / a) }
    return div(p & 0xFF) | div((p >> 8) & 0xFF) << 8 | div((p >> 16) & 0xFF) << 16 | a << 24
}
