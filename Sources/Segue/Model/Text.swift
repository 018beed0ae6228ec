import Foundation

/// How text looks: font, size, colour, outline, box, shadow and alignment. Lengths are
/// canvas points (a size of 28 is an em of 28 × `canvas.scale` pixels; no 96-dpi conversion).
public struct TextStyle: Hashable, Sendable {
    public enum Alignment: String, CaseIterable, Sendable {
        case left, center, right
        /// Left for left-to-right text, right for right-to-left (Arabic, Hebrew).
        case natural
    }

    public struct Outline: Hashable, Sendable {
        public var width: Double
        public var color: Color
    }

    public struct Box: Hashable, Sendable {
        public var color: Color
        public var padding: Double
        public var radius: Double
    }

    public struct Shadow: Hashable, Sendable {
        public var x: Double
        public var y: Double
        public var blur: Double
        public var color: Color
    }

    /// A fontconfig family, or a list of them ("Noto Sans, Noto Sans Arabic"); fontconfig
    /// falls back for characters the fonts lack (colour emoji from Noto Color Emoji).
    public var font = "Noto Sans"
    public var size = 28.0
    /// 100 (thin) ... 900 (black); 400 regular, 700 bold.
    public var weight = 400
    public var italic = false
    public var color = Color.white
    public var outline: Outline?
    public var box: Box?
    public var shadow: Shadow?
    public var align = Alignment.center
    /// Line height as a factor of the font's own; 0 for the font's.
    public var lineSpacing = 0.0
    /// Points added between letters.
    public var letterSpacing = 0.0

    public init() {}

    /// The weights by name, as CSS and fontconfig name them.
    static let weights: [String: Int] = [
        "thin": 100, "extralight": 200, "ultralight": 200, "light": 300, "regular": 400, "normal": 400, "book": 400,
        "medium": 500, "semibold": 600, "demibold": 600, "bold": 700, "extrabold": 800, "ultrabold": 800,
        "black": 900, "heavy": 900,
    ]
}

/// One text picture to draw: the words, their style, the wrap width and the scale, and for a
/// typewriter how many characters show. The picture is the same size for every `reveal`.
struct TextLook: Hashable, Sendable {
    var text: String
    var markup: Bool
    var style: TextStyle
    /// Wrap width in points; nil for no wrapping.
    var width: Double?
    /// Pixels per point.
    var scale: Double
    var reveal: Int?
    var highlight: Overlay.Highlight?

    /// The same look without what changes only its colours and what it hides: what laying it
    /// out depends on (`measure`).
    var layout: TextLook {
        var look = self
        look.reveal = nil
        look.highlight = nil
        return look
    }
}
