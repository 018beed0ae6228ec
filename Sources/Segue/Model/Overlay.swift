import CSegueAV
import Foundation

/// A layer of words or a sticker over a slide's page (it turns, flips and zooms with the
/// page) or over the whole video (fixed to the screen, above the transitions): its words and
/// style or its picture, where it sits, when it shows, and how it comes and goes. Every
/// animation is a pure function of time.
public struct Overlay: Hashable, Sendable {
    /// How an overlay comes in or goes out.
    public struct Appearance: Hashable, Sendable {
        public enum Kind: String, CaseIterable, Sendable {
            case none, fade, pop
            case slideUp = "slide-up", slideDown = "slide-down"
            /// The characters appear one by one (or leave, going out).
            case typewriter
        }

        public var kind: Kind
        /// Seconds; for a typewriter, nil means 0.05 s a character.
        public var duration: Double?

        public static let none = Appearance(kind: .none, duration: 0)
    }

    /// What an overlay shows, its kind: words or a picture. Placement, timing and how it
    /// comes and goes are the same for every kind.
    public enum Content: Hashable, Sendable {
        /// Words in the overlay's `style`, as plain text or Pango markup (`<b>Day 1</b> in Lisbon`).
        case text(String, markup: Bool)
        /// A picture (a sticker or a logo), still or animated, sized by itself.
        case image(Sticker)
    }

    public var content: Content
    /// The style of text (unused by a picture).
    public var style: TextStyle
    /// Where the anchor sits, in 0...1 of the page (or screen).
    public var at = Point(x: 0.5, y: 0.5)
    /// Which point of the text block sits there, in 0...1 of the block.
    public var anchor = Point(x: 0.5, y: 0.5)
    /// The wrap width, a fraction of the page's width; nil for no wrapping.
    public var width: Double? = 0.9
    /// Degrees, clockwise.
    public var rotation = 0.0
    /// When it shows, in seconds from the start of the slide's time on screen (or of the
    /// video); open while the slide (or video) lasts.
    public var span = Span()
    public var appear = Appearance.none
    public var disappear = Appearance.none
    public var opacity = 1.0
    /// Only the first `shown` characters (Unicode scalars) are drawn, the rest laid out but
    /// hidden (a caption's words as they are spoken); nil for all.
    public var shown: Int?
    /// Characters (Unicode scalars) of the text drawn in another colour: a caption's word being
    /// spoken. The text stays one string, shared by every word's overlay of a cue.
    public var highlight: Highlight?
    public struct Highlight: Hashable, Sendable {
        public var scalars: Range<Int>
        public var color: Color
        public init(scalars: Range<Int>, color: Color) {
            self.scalars = scalars
            self.color = color
        }
    }
    /// Whether `at` was given (the story's `at:`): such an overlay stays where it is put, even
    /// where a platform's interface covers the screen (`canvas.safeArea`, said in a warning);
    /// one placed by default (captions, `--text`, a logo without `at`) keeps out of it.
    public var placed = false

    /// The most characters (Unicode scalars) a text holds: a transcript's cue or a page of text.
    public static let maxCharacters = 100_000
    /// The most characters a word (a run without white space) holds: Pango breaks a longer
    /// one into lines in time growing with the square of its length.
    public static let maxWord = 1_000

    /// What makes `text` too long to draw, said with the limit it is over, or nil (one pass).
    public static func lengthProblem(_ text: String) -> String? {
        var count = 0, run = 0, longest = 0
        for scalar in text.unicodeScalars {
            count += 1
            run = scalar.properties.isWhitespace ? 0 : run + 1
            longest = max(longest, run)
        }
        if count > maxCharacters { return "a text of at most \(maxCharacters) characters (it has \(count))" }
        if longest > maxWord { return "words of at most \(maxWord) characters without a space (one has \(longest))" }
        return nil
    }

    public init(text: String, markup: Bool = false, style: TextStyle = TextStyle()) {
        self.content = .text(text, markup: markup)
        self.style = style
    }

    public init(sticker: Sticker) {
        self.content = .image(sticker)
        self.style = TextStyle()
    }

    /// The words of a text overlay; empty for a picture.
    public var text: String {
        if case let .text(text, _) = content { text } else { "" }
    }

    /// Whether the words are Pango markup.
    public var markup: Bool {
        if case let .text(_, markup) = content { markup } else { false }
    }

    /// The picture of an image overlay; nil for text.
    public var sticker: Sticker? {
        if case let .image(sticker) = content { sticker } else { nil }
    }

    /// The steps of a typewriter: one per character as a reader sees it (a grapheme: an
    /// emoji sequence or a Devanagari syllable appears whole).
    var steps: Int { plainText.count }


    /// The text without markup, as Pango draws it (entities and character references decoded).
    var plainText: String {
        guard markup, let plain = segue_text_plain(text) else { return text }
        defer { segue_text_plain_free(plain) }
        return String(cString: plain)
    }

    /// How the overlay is drawn at one time: nil when it is not on screen.
    struct State: Hashable, Sendable {
        var opacity: Double
        var scale: Double
        /// Points down the page.
        var shift: Double
        /// Steps a typewriter has typed; nil for all.
        var reveal: Int?
        /// For an animated sticker, the start of the frame it shows (seconds into its pass).
        var frame: Double?
    }

    /// Points a slide-in travels.
    static let slideDistance = 24.0

    func seconds(of appearance: Appearance) -> Double {
        if let duration = appearance.duration { return duration }
        return appearance.kind == .typewriter ? 0.05 * Double(steps) : 0.3
    }

    /// The state at `time` seconds (as `start` counts them), for a slide or video that lasts
    /// `length` seconds.
    func state(at time: Double, length: Double) -> State? {
        let start = span.start, end = min(span.endTime ?? length, length)
        guard time >= start, time < end || (span.isOpen && time <= end) else { return nil }
        var state = State(opacity: opacity, scale: 1, shift: 0, reveal: nil)
        let inSeconds = seconds(of: appear), outSeconds = seconds(of: disappear)
        if appear.kind != .none, inSeconds > 0, time - start < inSeconds {
            apply(appear.kind, progress: (time - start) / inSeconds, to: &state, coming: true)
        }
        if disappear.kind != .none, outSeconds > 0, end - time < outSeconds {
            apply(disappear.kind, progress: max(0, end - time) / outSeconds, to: &state, coming: false)
        }
        return state
    }

    /// `progress` runs 0 → 1 as the overlay comes in, 1 → 0 as it goes out.
    private func apply(_ kind: Appearance.Kind, progress p: Double, to state: inout State, coming: Bool) {
        let p = min(max(p, 0), 1)
        let easeOut = 1 - (1 - p) * (1 - p)
        switch kind {
        case .none: break
        case .fade: state.opacity *= p
        case .pop:
            // A quick grow past full size and back (an ease-out-back curve), fading in over its first third.
            let c = 1.70158, q = p - 1
            state.scale *= 0.5 + 0.5 * (1 + (c + 1) * q * q * q + c * q * q)
            state.opacity *= min(1, 3 * p)
        case .slideUp:
            state.shift += (1 - easeOut) * Overlay.slideDistance * (coming ? 1 : -1)
            state.opacity *= p
        case .slideDown:
            state.shift -= (1 - easeOut) * Overlay.slideDistance * (coming ? 1 : -1)
            state.opacity *= p
        case .typewriter:
            let shown = Int((p * Double(steps)).rounded(.down))
            state.reveal = min(state.reveal ?? steps, shown)
        }
    }

    /// The look the overlay draws on a page `pageWidth` points wide at `scale`, a typewriter
    /// having typed the characters that make its first `typed` Unicode scalars (nil: all).
    func look(pageWidth: Double, scale: Double, typed: Int? = nil) -> TextLook {
        var reveal = shown
        if let typed { reveal = min(reveal ?? Int.max, typed) }
        return TextLook(text: text, markup: markup, style: style, width: width.map { $0 * pageWidth }, scale: scale, reveal: reveal,
                        highlight: highlight)
    }

    /// The Unicode scalars before each of a typewriter's steps: step k shows the first k
    /// characters, as many scalars as the k-th element says (one pass over the text).
    var stepScalars: [Int] {
        var counts: [Int] = [], scalars = 0
        for character in plainText {
            counts.append(scalars)
            scalars += character.unicodeScalars.count
        }
        return counts
    }

    /// The overlay's layer in a page of `page` points, drawing `picture` `pixels` big at
    /// `scale` pixels per point; `block` is the part of it (in pixels) that `anchor` is taken
    /// in (a text's block of lines; a sticker's whole picture). Its anchor sits at `at`, the
    /// picture's corner on whole pixels while nothing turns it. With `safe` margins, the block
    /// is moved the least that keeps it inside them (centred between them when it is larger).
    func layer(_ state: State, picture: Picture, pixels: Size, block: Rect, page: Size, scale: Double, safe: EdgeInsets = EdgeInsets()) -> Layer {
        let w = pixels.width, h = pixels.height
        var layer = Layer(bounds: Rect(x: 0, y: 0, width: w / scale, height: h / scale), position: .zero)
        layer.anchorPoint = Point(x: (block.minX + anchor.x * block.width) / w, y: (block.minY + anchor.y * block.height) / h)
        // The picture's corner on a whole pixel: upright and unscaled, it is drawn as Cairo drew it.
        var x = at.x * page.width * scale - layer.anchorPoint.x * w
        var y = at.y * page.height * scale - layer.anchorPoint.y * h
        if !safe.isZero {
            x = Overlay.kept(x, block: block.minX...block.maxX, within: safe.left * page.width * scale...(1 - safe.right) * page.width * scale)
            y = Overlay.kept(y, block: block.minY...block.maxY, within: safe.top * page.height * scale...(1 - safe.bottom) * page.height * scale)
        }
        y += state.shift * scale
        layer.position = Point(x: (x.rounded() + layer.anchorPoint.x * w) / scale, y: (y.rounded() + layer.anchorPoint.y * h) / scale)
        var transform = Transform3D.identity
        if state.scale != 1 { transform = transform.scaled(x: state.scale, y: state.scale) }
        if rotation != 0 { transform = transform.concatenating(Transform3D(rotationAngle: rotation * .pi / 180, x: 0, y: 0, z: 1)) }
        layer.transform = transform
        layer.opacity = state.opacity
        layer.contents = .picture(picture)
        layer.contentsGravity = .stretch
        layer.name = sticker == nil ? "text" : "sticker"
        return layer
    }

    /// `origin` moved the least that puts `block` (from the origin) inside `area`, or centred
    /// in it when it is larger.
    static func kept(_ origin: Double, block: ClosedRange<Double>, within area: ClosedRange<Double>) -> Double {
        let low = origin + block.lowerBound, high = origin + block.upperBound
        if high - low > area.upperBound - area.lowerBound { return origin + (area.lowerBound + area.upperBound - low - high) / 2 }
        if low < area.lowerBound { return origin + area.lowerBound - low }
        if high > area.upperBound { return origin - (high - area.upperBound) }
        return origin
    }
}

extension Overlay {
    /// Reads an `overlays:` list: each item a text overlay over `base` (a named `style`
    /// replaces it), every problem of every item thrown together. Font files are resolved by
    /// `resolve`.
    public static func list(_ node: ConfigNode, key: String, base: TextStyle, styles: [String: TextStyle],
                     resolve: (String) -> String = { $0 }, limits: Limits = Limits()) throws -> [Overlay] {
        guard case let .sequence(items) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: ConfigReader.kind(of: node), expected: "a list of overlays, each with text or an image")
        }
        var overlays: [Overlay] = [], problems: [PresetError] = []
        for (index, item) in items.enumerated() {
            do { overlays.append(try read(item, key: "\(key)[\(index + 1)]", base: base, styles: styles, resolve: resolve, limits: limits)) } catch let error as PresetError {
                problems += error.all
            }
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        return overlays
    }

    static let anchors: [String: Point] = [
        "center": Point(x: 0.5, y: 0.5), "top": Point(x: 0.5, y: 0), "bottom": Point(x: 0.5, y: 1),
        "left": Point(x: 0, y: 0.5), "right": Point(x: 1, y: 0.5), "top-left": Point(x: 0, y: 0), "top-right": Point(x: 1, y: 0),
        "bottom-left": Point(x: 0, y: 1), "bottom-right": Point(x: 1, y: 1),
    ]

    /// One overlay.
    static func read(_ item: ConfigNode, key: String, base: TextStyle, styles: [String: TextStyle],
                     resolve: (String) -> String = { $0 }, limits: Limits = Limits(), schema: ConfigReader.Schema? = nil) throws -> Overlay {
        var r = try ConfigReader(item, path: key)
        r.schema = schema
        if item["image"] != nil, item["text"] == nil { return try readSticker(&r, item: item, limits: limits)! }
        let text = try r.requiredText("text", expected: "the words to show (or image: a sticker's file)", "The words: UTF-8, any script, emoji; Pango markup when markup is true.")
        if let problem = lengthProblem(text) {
            throw PresetError.invalid(key: r.fullKey("text"), origin: item["text"]!.origin, value: "'\(shortened(text))'", expected: problem)
        }
        var style = base
        if let name = r.raw("style", type: "text", "A named style (classic, modern, neon, typewriter, strong, caption, or one of the preset's or story's styles); the keys below change it.") {
            style = try TextStyle.named(name, key: r.fullKey("style"), among: styles)
        }
        try style.read(&r, resolve: resolve)
        let markup = try r.flag("markup", default: false, "The text is Pango markup: <b>, <i>, <span foreground=\"#ff0\">, ...")
        var overlay = Overlay(text: text, markup: markup, style: style)
        if markup {
            var error = SegueAVError()
            if segue_text_check_markup(text, &error) != 0 {
                throw PresetError.invalid(key: r.fullKey("text"), origin: item["text"]!.origin, value: "'\(text)'", expected: "Pango markup (\(error.text))")
            }
        }
        let width = try r.number("width", default: 0.9, in: 0...1, "Wrap width, a fraction of the page's width; 0 for no wrapping.")
        overlay.width = width > 0 ? width : nil
        try readPlacement(&r, item: item, into: &overlay)
        return overlay
    }

    /// A sticker: `image` and its size, and the keys text has for where and when. With
    /// `base` (a preset's logo), the image may be left out (no sticker: nil) and the other
    /// keys default to `base`'s.
    static func readSticker(_ r: inout ConfigReader, item: ConfigNode, limits: Limits, base: Overlay? = nil) throws -> Overlay? {
        let meaning = "A sticker's picture: PNG, WebP, GIF, APNG, JPEG, or a WebM or MOV with alpha; relative to the file."
        let path = base == nil ? try r.requiredText("image", expected: "a picture's file", meaning)
            : try r.text("image", default: "", "The logo's picture (PNG, WebP, GIF, ...), fixed to the screen over every frame; none when empty. --logo FILE sets it.")
        var overlay = base ?? Overlay(sticker: Sticker(path: path))
        let width = try r.number("width", default: overlay.sticker?.width ?? 0, in: 0...4, "A sticker's width, a fraction of the page's width (its height follows its shape); 0: its own size in pixels.")
        let height = try r.number("height", default: overlay.sticker?.height ?? 0, in: 0...4, "A sticker's height, a fraction of the page's height, instead of width.")
        let loop = try r.flag("loop", default: true, "An animated sticker starts again at its end; false holds its last frame.")
        try readPlacement(&r, item: item, into: &overlay)
        guard !path.isEmpty else { return nil }
        let key = r.fullKey("image"), origin = item["image"]?.origin ?? item.origin
        guard FileManager.default.fileExists(atPath: path) else {
            throw PresetError.invalid(key: key, origin: origin, value: "'\(path)'", expected: "a file that exists (no such file)")
        }
        let info: SegueStickerInfo
        do { info = try Sticker.probe(path, limits: limits) } catch let error as ExportError {
            let reason: String
            switch error {
            case let .unreadableImage(_, why): reason = why
            default: reason = "\(error)"
            }
            throw PresetError.invalid(key: key, origin: origin, value: "'\(path)'",
                                      expected: "a picture or animation (PNG, WebP, GIF, APNG, JPEG, WebM or MOV with alpha): \(reason)")
        }
        if width > 0, height > 0, item["width"] != nil || item["height"] != nil {
            throw PresetError.invalid(key: r.fullKey("height"), origin: item["height"]?.origin ?? item.origin, value: format(height),
                                      expected: "width or height, not both (the other follows the picture's shape)")
        }
        var sticker = Sticker(path: path, width: width > 0 ? width : nil, height: width > 0 ? nil : (height > 0 ? height : nil))
        sticker.frames = Int(info.frames)
        sticker.loop = loop
        overlay.content = .image(sticker)
        for (name, appearance) in [("in", overlay.appear), ("out", overlay.disappear)] where appearance.kind == .typewriter {
            throw PresetError.invalid(key: r.fullKey(name), origin: item[name]?.origin ?? item.origin, value: "'typewriter'",
                                      expected: "fade, pop, slide-up, slide-down or none (a sticker has no characters to type)")
        }
        return overlay
    }

    /// The keys text and stickers share: where the overlay sits, when it shows, how it comes and goes.
    private static func readPlacement(_ r: inout ConfigReader, item: ConfigNode, into overlay: inout Overlay) throws {
        let at = try r.numbers("at", default: [overlay.at.x, overlay.at.y], in: -1...2, expected: "[x, y]", "Where the anchor sits, [x, y] in 0...1 of the page.") { $0.count == 2 }
        overlay.at = Point(x: at[0], y: at[1])
        if item["at"] != nil { overlay.placed = true }
        let anchorName = anchors.first { $0.value == overlay.anchor }?.key ?? "[\(format(overlay.anchor.x)), \(format(overlay.anchor.y))]"
        if let node = r.raw("anchor", type: "text or [x, y]", default: anchorName, "Which point of the text block (or sticker) sits at `at`: center, top, bottom, left, right, top-left, ..., or [x, y] in 0...1 of the block.") {
            overlay.anchor = try anchor(node, key: r.fullKey("anchor"))
        }
        overlay.rotation = try r.number("rotation", default: overlay.rotation, in: -360...360, "Degrees, clockwise.")
        overlay.span.start = try r.number("start", default: overlay.span.start, in: 0...86400, "Seconds into the slide's time on screen, which begins with its incoming transition (a story-level overlay: into the video), when it shows.")
        if let endNode = item["end"] {
            let end = try r.number("end", default: 0, in: 0...86400, "Seconds (as start) when it goes; default: when the slide (or video) ends.")
            // 0 is the default written out: while the slide (or video) lasts.
            guard end > overlay.span.start || end == 0 else {
                throw PresetError.invalid(key: r.fullKey("end"), origin: endNode.origin, value: format(end), expected: "a time after start (\(format(overlay.span.start)) s)")
            }
            overlay.span.end = end == 0 ? .open : .at(end)
        } else {
            _ = try r.number("end", default: 0, in: 0...86400, "Seconds (as start) when it goes; default: when the slide (or video) ends.")
        }
        overlay.appear = try appearance(&r, "in", "How it comes in: fade, pop, slide-up, slide-down, typewriter, none, or {kind, duration}.")
        overlay.disappear = try appearance(&r, "out", "How it goes out: as in.")
        overlay.opacity = try r.number("opacity", default: overlay.opacity, in: 0...1, "Opacity, 0...1.")
        try r.finish()
    }

    static func anchor(_ node: ConfigNode, key: String) throws -> Point {
        if case let .sequence(items) = node.value, items.count == 2 {
            let x = try ConfigReader.number(items[0], key: key), y = try ConfigReader.number(items[1], key: key)
            guard (0...1).contains(x), (0...1).contains(y) else { throw PresetError.outOfRange(key: key, origin: node.origin, value: "[\(format(x)), \(format(y))]", range: "each 0...1") }
            return Point(x: x, y: y)
        }
        let name = try ConfigReader.string(node, key: key)
        guard let point = anchors[name] else {
            let names = anchors.keys.sorted()
            throw PresetError.invalid(key: key, origin: node.origin, value: "'\(name)'", expected: "one of: \(names.joined(separator: ", ")), or [x, y]")
        }
        return point
    }

    static func appearance(_ r: inout ConfigReader, _ key: String, _ meaning: String) throws -> Appearance {
        guard let node = r.raw(key, type: "text or mapping", default: "none", meaning) else { return .none }
        let kinds = Appearance.Kind.allCases.map(\.rawValue)
        func kind(_ node: ConfigNode, key: String) throws -> Appearance.Kind {
            let name = try ConfigReader.string(node, key: key)
            guard let kind = Appearance.Kind(rawValue: name) else {
                let hint = suggestion(for: name, among: kinds).map { "; did you mean '\($0)'?" } ?? ""
                throw PresetError.invalid(key: key, origin: node.origin, value: "'\(name)'", expected: "one of: \(kinds.joined(separator: ", "))\(hint)")
            }
            return kind
        }
        if case .scalar = node.value { return Appearance(kind: try kind(node, key: r.fullKey(key)), duration: nil) }
        var a = try ConfigReader(node, path: r.fullKey(key))
        guard let kindNode = a.raw("kind", type: "text", "fade, pop, slide-up, slide-down, typewriter or none.") else {
            throw PresetError.missingKey(key: a.fullKey("kind"), origin: node.origin, expected: "one of: \(kinds.joined(separator: ", "))")
        }
        let k = try kind(kindNode, key: a.fullKey("kind"))
        let duration = node["duration"] == nil ? nil : try a.number("duration", default: 0.3, in: 0...60, "Seconds; a typewriter's default is 0.05 s a character, the others' 0.3 s.")
        if node["duration"] == nil { _ = try a.number("duration", default: 0.3, in: 0...60, "Seconds.") }
        try a.finish()
        return Appearance(kind: k, duration: duration)
    }
}

extension ConfigNode {
    /// This tree with every `font:` that names a file, and every sticker's `image:`,
    /// resolved by `resolve` (relative to the file that names it).
    func resolvingFiles(_ resolve: (String) -> String) -> ConfigNode {
        switch value {
        case .scalar: return self
        case let .sequence(items): return ConfigNode(.sequence(items.map { $0.resolvingFiles(resolve) }), origin: origin)
        case let .mapping(pairs):
            return ConfigNode(.mapping(pairs.map { pair in
                if pair.key == "font" || pair.key == "image", case let .scalar(text, quoted) = pair.value.value,
                   pair.key == "image" ? !text.isEmpty : TextStyle.namesFile(text) {
                    return (key: pair.key, value: ConfigNode(.scalar(resolve(text), quoted: quoted), origin: pair.value.origin))
                }
                return (key: pair.key, value: pair.value.resolvingFiles(resolve))
            }), origin: origin)
        }
    }
}
