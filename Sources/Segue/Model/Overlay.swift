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
        /// A light leak drawn by Segue over the whole canvas.
        case leak(LightLeak)

        /// Its kind's name, as `OverlayKind` (in the story room) describes each.
        public var kind: String {
            switch self {
            case .text: "text"
            case .image: "sticker"
            case .leak: "leak"
            }
        }
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
    /// How it is laid over what is beneath (a light leak's `screen`).
    public var blend = BlendMode.normal
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
    /// The line of the file it was read from, when that is not the story (a caption's cue in
    /// its SRT or WebVTT file), for the user to find it; it changes nothing drawn.
    public var line: Int?

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

    public init(leak: LightLeak) {
        self.content = .leak(leak)
        self.style = TextStyle()
        self.blend = .screen
    }

    /// The light leak it draws, if it is one.
    public var leak: LightLeak? {
        if case let .leak(leak) = content { leak } else { nil }
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
        layer.blendMode = blend
        layer.contents = .picture(picture)
        layer.contentsGravity = .stretch
        layer.name = content.kind
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
