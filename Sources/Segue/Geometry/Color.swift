import Foundation

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
