import Foundation

/// A text style read from a preset, a story or a caption file: its keys over a base style,
/// named styles, and fonts named by family or file (a file is added to fontconfig).
extension TextStyle {
    /// The style keys, for errors that list them.
    static let keys = ["font", "size", "weight", "italic", "color", "outline", "box", "shadow", "align", "lineSpacing", "letterSpacing"]

    /// Reads the style keys `r` gives over this style. A `font` that names a file (a path, or
    /// a name ending in .ttf, .otf, .ttc, .woff or .woff2) is added to fontconfig, resolved by
    /// `resolve`; a family must be one fontconfig has (unless `checksFamilies` is false: the
    /// shipped styles, read at start-up, do not wake fontconfig for a video without words).
    mutating func read(_ r: inout ConfigReader, resolve: (String) -> String = { $0 }, checksFamilies: Bool = true) throws {
        if let node = r.raw("font", type: "text", default: font, "A font family fontconfig knows (or a list, comma-separated), or a font file (.ttf, .otf), relative to the file that names it.") {
            font = try TextStyle.font(node, key: r.fullKey("font"), resolve: resolve, checksFamilies: checksFamilies)
        }
        size = try r.number("size", default: size, in: 1...2000, "The em size in canvas points: 28 is 84 pixels at canvas.scale 3.")
        weight = try r.parsed("weight", default: weight, type: "text or number",
                              expected: "a weight from 100 to 1000, or a name (" + TextStyle.weights.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key).joined(separator: ", ") + ")",
                              "How heavy the letters are: thin ... black, or 100 ... 1000.") { text in
            if let named = TextStyle.weights[text.lowercased()] { return named }
            guard let value = Int(text), (100...1000).contains(value) else { return nil }
            return value
        }
        italic = try r.flag("italic", default: italic, "Italic (or oblique) letters.")
        color = try r.color("color", default: color, "The letters' colour.")
        if let node = r.raw("outline", type: "mapping", default: outline.map { "{width: \(format($0.width)), color: \"\($0.color)\"}" } ?? "none", "An outline drawn outside the letters: {width: points, color}; none for no outline.") {
            outline = try TextStyle.part(node, key: r.fullKey("outline")) { o in
                Outline(width: try o.number("width", default: outline?.width ?? 2, in: 0...200, "Outline width in points, outside the letters."),
                        color: try o.color("color", default: outline?.color ?? .black, "Outline colour."))
            }
        }
        if let node = r.raw("box", type: "mapping", default: box.map { "{color: \"\($0.color)\", padding: \(format($0.padding)), radius: \(format($0.radius))}" } ?? "none", "A box behind each line: {color, padding: points, radius: points}; none for no box.") {
            box = try TextStyle.part(node, key: r.fullKey("box")) { b in
                Box(color: try b.color("color", default: box?.color ?? .black, "Box colour."),
                    padding: try b.number("padding", default: box?.padding ?? 6, in: 0...500, "Room between the letters and the box's edge, in points."),
                    radius: try b.number("radius", default: box?.radius ?? 6, in: 0...500, "Corner radius in points."))
            }
        }
        if let node = r.raw("shadow", type: "mapping", default: shadow.map { "{offset: [\(format($0.x)), \(format($0.y))], blur: \(format($0.blur)), color: \"\($0.color)\"}" } ?? "none", "A shadow: {offset: [x, y] points, blur: points, color}; at no offset and in the letters' colour it is a glow; none for no shadow.") {
            shadow = try TextStyle.part(node, key: r.fullKey("shadow")) { s in
                let offset = try s.numbers("offset", default: [shadow?.x ?? 0, shadow?.y ?? 1], in: -500...500, expected: "[x, y] in points",
                                           "How far the shadow falls, [x, y] points (y down).") { $0.count == 2 }
                return Shadow(x: offset[0], y: offset[1],
                              blur: try s.number("blur", default: shadow?.blur ?? 3, in: 0...200, "Blur radius in points."),
                              color: try s.color("color", default: shadow?.color ?? Color(red: 0, green: 0, blue: 0, alpha: 0.5), "Shadow colour (#RRGGBBAA for a translucent one)."))
            }
        }
        align = Alignment(rawValue: try r.choice("align", default: align.rawValue, among: Alignment.allCases.map(\.rawValue),
                                                 "How lines align: left, center, right, or natural (left, or right for right-to-left text)."))!
        lineSpacing = try r.number("lineSpacing", default: lineSpacing, in: 0...10, "Line height as a factor of the font's; 0 for the font's own.")
        letterSpacing = try r.number("letterSpacing", default: letterSpacing, in: -100...100, "Points added between letters.")
    }

    /// An outline, box or shadow: a mapping read by `read`, or `none` (or false) for none.
    private static func part<T>(_ node: ConfigNode, key: String, _ read: (inout ConfigReader) throws -> T) throws -> T? {
        if case let .scalar(text, _) = node.value, ["none", "false"].contains(text) { return nil }
        var r = try ConfigReader(node, path: key)
        let value = try read(&r)
        try r.finish()
        return value
    }

    /// The shipped named styles, modelled on Instagram Stories' text styles, as data.
    static let shippedYAML = """
        classic:                # plain letters with a soft shadow
          weight: medium
          shadow: {offset: [0, 1], blur: 3, color: "#00000066"}
        modern:                 # heavy, tightly set
          weight: 800
          letterSpacing: -0.3
          shadow: {offset: [0, 1], blur: 2, color: "#00000055"}
        neon:                   # a glow in the letters' own hue
          weight: semibold
          color: "#fff4fb"
          shadow: {offset: [0, 0], blur: 7, color: "#ff2d95"}
        typewriter:             # monospaced, dark on a light box
          font: Noto Sans Mono
          color: "#111111"
          box: {color: "#ffffffeb", padding: 5, radius: 3}
        strong:                 # bold on a coloured box
          weight: black
          box: {color: "#e1306c", padding: 7, radius: 8}
        caption:                # subtitles: bold, outlined, readable on any picture
          size: 20
          weight: bold
          outline: {width: 2, color: "#000000"}
          shadow: {offset: [0, 1], blur: 3, color: "#00000099"}
        """

    /// The shipped styles, read from `shippedYAML` over the default style.
    public static let shipped: [String: TextStyle] = {
        do {
            return try named(ConfigNode.parse(yaml: shippedYAML, name: "shipped text styles"), key: "styles", over: [:], checksFamilies: false)
        } catch {
            preconditionFailure("the shipped text styles do not read: \(error)")
        }
    }()

    /// Named styles from a `styles:` mapping, each read over the default style, added to `base`.
    static func named(_ node: ConfigNode, key: String, over base: [String: TextStyle], resolve: (String) -> String = { $0 },
                      checksFamilies: Bool = true) throws -> [String: TextStyle] {
        // `styles: {}` as `segue presets show` prints it (none of the preset's own), or none.
        if case let .scalar(text, _) = node.value, ["{}", "none", ""].contains(text) { return base }
        guard case let .mapping(pairs) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: ConfigReader.kind(of: node), expected: "a mapping of style names to text keys")
        }
        var styles = base
        for pair in pairs {
            var r = try ConfigReader(pair.value, path: "\(key).\(pair.key)")
            var style = TextStyle()
            try style.read(&r, resolve: resolve, checksFamilies: checksFamilies)
            try r.finish()
            styles[pair.key] = style
        }
        return styles
    }

    /// The style a `style:` value names among `styles`; an unknown name lists them, with the
    /// closest.
    static func named(_ node: ConfigNode, key: String, among styles: [String: TextStyle]) throws -> TextStyle {
        let wanted = try ConfigReader.string(node, key: key)
        guard let named = styles[wanted] else {
            let names = styles.keys.sorted()
            let hint = suggestion(for: wanted, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw PresetError.invalid(key: key, origin: node.origin, value: "'\(wanted)'", expected: "one of the styles: \(names.joined(separator: ", "))\(hint)")
        }
        return named
    }

    /// Whether a `font` value names a file: a path, or a name with a font file's extension.
    static func namesFile(_ text: String) -> Bool {
        text.contains("/") || ["ttf", "otf", "ttc", "otc", "woff", "woff2", "pfb"].contains((text as NSString).pathExtension.lowercased())
    }

    /// Generic families fontconfig resolves itself.
    static let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "cursive", "fantasy", "emoji", "system-ui"]

    /// The family (list) a `font` value names, a font file added to fontconfig first.
    static func font(_ node: ConfigNode, key: String, resolve: (String) -> String, checksFamilies: Bool = true) throws -> String {
        let text = try ConfigReader.string(node, key: key).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw PresetError.invalid(key: key, origin: node.origin, value: "empty", expected: "a font family or a font file") }
        if namesFile(text) {
            let path = resolve(text)
            guard FileManager.default.fileExists(atPath: path) else {
                throw PresetError.invalid(key: key, origin: node.origin, value: "'\(path)'", expected: "a font file that exists (no such file)")
            }
            do { return try Fonts.add(file: path) } catch let ExportError.text(_, reason) {
                throw PresetError.invalid(key: key, origin: node.origin, value: "'\(path)'", expected: "a font file (\(reason))")
            }
        }
        guard checksFamilies else { return text }
        for family in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !family.isEmpty {
            guard !generic.contains(family.lowercased()), !Fonts.has(family: family) else { continue }
            let close = Fonts.closest(to: family)
            throw PresetError.invalid(key: key, origin: node.origin, value: "'\(family)'",
                                      expected: "a font family fontconfig has" + (close.isEmpty ? "" : " (closest: \(close.joined(separator: ", ")))")
                                          + "; `segue fonts` lists them all, or name a font file")
        }
        return text
    }
}
