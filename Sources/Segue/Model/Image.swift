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

/// A color with straight (not premultiplied) components from 0 to 1, in sRGB.
public struct Color: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)

    /// Parses `#RGB`, `#RRGGBB`, `#RRGGBBAA` or one of the names in `Color.named`.
    public init?(parsing text: String) {
        let lower = text.lowercased()
        if let named = Color.named[lower] { self = named; return }
        guard lower.hasPrefix("#") else { return nil }
        var hex = String(lower.dropFirst())
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6 || hex.count == 8, let value = UInt64(hex, radix: 16) else { return nil }
        let bytes = hex.count == 6 ? (value << 8) | 0xFF : value
        self.init(red: Double((bytes >> 24) & 0xFF) / 255, green: Double((bytes >> 16) & 0xFF) / 255,
                  blue: Double((bytes >> 8) & 0xFF) / 255, alpha: Double(bytes & 0xFF) / 255)
    }

    public static let named: [String: Color] = [
        "black": .black, "white": .white, "clear": .clear,
        "red": Color(red: 1, green: 0, blue: 0), "green": Color(red: 0, green: 1, blue: 0),
        "blue": Color(red: 0, green: 0, blue: 1), "gray": Color(red: 0.5, green: 0.5, blue: 0.5),
    ]

    /// The color as one premultiplied RGBA pixel, each channel rounded to 8 bits.
    public var premultipliedPixel: UInt32 {
        func byte(_ v: Double) -> UInt32 { UInt32((min(max(v, 0), 1) * 255).rounded()) }
        let a = byte(alpha)
        let r = min(byte(red * alpha), a), g = min(byte(green * alpha), a), b = min(byte(blue * alpha), a)
        return r | g << 8 | b << 16 | a << 24
    }

    public var description: String {
        func hex(_ v: Double) -> String {
            let s = String(Int((min(max(v, 0), 1) * 255).rounded()), radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + hex(red) + hex(green) + hex(blue) + (alpha < 1 ? hex(alpha) : "")
    }
}

/// Turns one premultiplied RGBA pixel back into straight alpha, rounding each channel.
@inline(__always)
func unpremultiply(_ p: UInt32) -> UInt32 {
    let a = p >> 24
    if a == 255 || a == 0 { return a == 0 ? 0 : p }
    @inline(__always) func div(_ c: UInt32) -> UInt32 { min(255, (c * 255 + a / 2) / a) }
    return div(p & 0xFF) | div((p >> 8) & 0xFF) << 8 | div((p >> 16) & 0xFF) << 16 | a << 24
}
