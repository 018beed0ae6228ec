import CSegueAV
import Foundation

/// The fonts fontconfig finds, and font files added for a render.
public enum Fonts {
    /// Every font family, sorted, each once.
    public static func families() -> [String] {
        final class Names { var list: [String] = [] }
        let names = Names()
        segue_text_families({ family, context in
            Unmanaged<Names>.fromOpaque(context!).takeUnretainedValue().list.append(String(cString: family!))
        }, Unmanaged.passUnretained(names).toOpaque())
        return names.list
    }

    public static func has(family: String) -> Bool { segue_text_has_family(family) == 1 }

    /// Up to three families closest to `family` by name.
    static func closest(to family: String) -> [String] {
        let lower = family.lowercased()
        return families().map { ($0, editDistance(lower, $0.lowercased())) }
            .filter { $0.1 <= max(3, family.count / 2) || $0.0.lowercased().contains(lower) }
            .sorted { $0.1 < $1.1 }.prefix(3).map(\.0)
    }

    /// Adds a font file for the rest of the process; its family name.
    static func add(file path: String) throws -> String {
        var family = [CChar](repeating: 0, count: 512)
        var error = SegueAVError()
        guard segue_text_add_font(path, &family, family.count, &error) == 0 else {
            throw ExportError.text(what: path, reason: error.text)
        }
        return String(decoding: family.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A text look laid out by Pango and drawn by Cairo, through the C layer.
extension TextLook {
    /// The look drawn, and where its block (the lines' box) sits in it, in pixels.
    func render() throws -> (image: Image, block: Rect) {
        let made = try make(drawing: true)
        return (made.image!, made.block)
    }

    /// The look laid out but not drawn: its picture's size and its block, in pixels.
    func measure() throws -> (size: Size, block: Rect) {
        let (size, block, _) = try make(drawing: false)
        return (size, block)
    }

    private func make(drawing: Bool) throws -> (size: Size, block: Rect, image: Image?) {
        WorkCounts.add(.textLayouts)
        // Read texts were checked where they were read; this holds for any other (--text).
        if let problem = Overlay.lengthProblem(text) { throw ExportError.text(what: "the text '\(shortened(text))'", reason: "too long: expected \(problem)") }
        var picture = SegueTextPicture()
        var error = SegueAVError()
        let s = style, scale = scale
        func rgba(_ c: Color) -> UInt32 {
            func byte(_ v: Double) -> UInt32 { UInt32((min(max(v, 0), 1) * 255).rounded()) }
            return byte(c.red) << 24 | byte(c.green) << 16 | byte(c.blue) << 8 | byte(c.alpha)
        }
        let status = text.withCString { text in
            s.font.withCString { family in
                var look = SegueTextLook()
                look.text = text
                look.markup = markup ? 1 : 0
                look.family = family
                look.size = s.size * scale
                look.weight = Int32(s.weight)
                look.italic = s.italic ? 1 : 0
                look.color = rgba(s.color)
                if let o = s.outline { look.outline = o.width * scale; look.outline_color = rgba(o.color) }
                if let b = s.box { look.box_color = rgba(b.color); look.box_padding = b.padding * scale; look.box_radius = b.radius * scale }
                if let h = s.shadow {
                    look.shadow_color = rgba(h.color)
                    look.shadow_x = h.x * scale; look.shadow_y = h.y * scale; look.shadow_blur = h.blur * scale
                }
                look.align = switch s.align { case .left: 0; case .center: 1; case .right: 2; case .natural: 3 }
                look.width = (width ?? 0) * scale
                look.line_spacing = s.lineSpacing
                look.letter_spacing = s.letterSpacing * scale
                look.reveal = Int32(clamping: reveal ?? -1)
                if let highlight {
                    look.highlight_start = Int32(clamping: highlight.scalars.lowerBound)
                    look.highlight_end = Int32(clamping: highlight.scalars.upperBound)
                    look.highlight_color = rgba(highlight.color)
                }
                return drawing ? segue_text_render(&look, &picture, &error) : segue_text_measure(&look, &picture, &error)
            }
        }
        defer { segue_text_picture_free(&picture) }
        guard status == 0 else { throw ExportError.text(what: "the text '\(shortened(text))'", reason: error.text) }
        let block = Rect(x: picture.block_x, y: picture.block_y, width: picture.block_width, height: picture.block_height)
        let size = Size(width: Double(picture.width), height: Double(picture.height))
        guard drawing else { return (size, block, nil) }
        let count = Int(picture.width) * Int(picture.height)
        let pixels = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            memcpy(buffer.baseAddress!, picture.pixels, count * 4)
            initialized = count
        }
        return (size, block, Image(width: Int(picture.width), height: Int(picture.height), pixels: pixels, isOpaque: false))
    }
}
