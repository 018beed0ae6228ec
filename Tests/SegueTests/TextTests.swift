import Foundation
import Testing
@testable import Segue

/// Runs `pango-view` (Pango's own renderer, pango1.0-tools) on `text` with the options that
/// match Segue's: an em of `size` pixels, no hinting, fractional positions, grey antialiasing,
/// white on transparent, no margin (the picture is the layout's logical box).
func pangoView(_ text: String, font: String = "Noto Sans", size: Int = 48, extra: [String] = [], in folder: URL) throws -> Image {
    let out = folder.appendingPathComponent("pango-\(UUID().uuidString).png").path
    try succeed("pango-view", ["-q", "--pixels", "--font", "\(font) \(size)", "--hinting=none", "--hint-metrics=off",
                         "--subpixel-positions", "--antialias=gray", "--margin=0", "--background=transparent",
                         "--foreground=#ffffff", "-o", out, "--text", text] + extra)
    return try Image.decode(path: out)
}

/// A look of `text` in white Noto Sans at `size` pixels (scale 1), unstyled.
func plainLook(_ text: String, size: Double = 48, align: TextStyle.Alignment = .left, width: Double? = nil, markup: Bool = false) -> TextLook {
    var style = TextStyle()
    style.size = size
    style.align = align
    return TextLook(text: text, markup: markup, style: style, width: width, scale: 1, reveal: nil)
}

/// The alpha of each pixel.
func alphas(_ image: Image) -> [Int] { image.pixels.map { Int($0 >> 24) } }

/// The bounding box of the pixels with alpha over `threshold`, and their alpha-weighted centroid.
func ink(_ image: Image, threshold: Int = 0) -> (box: (minX: Int, minY: Int, maxX: Int, maxY: Int), centroid: Point)? {
    var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
    var sx = 0.0, sy = 0.0, total = 0.0
    for y in 0..<image.height {
        for x in 0..<image.width {
            let a = Int(image.pixels[y * image.width + x] >> 24)
            guard a > threshold else { continue }
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            sx += Double(a) * Double(x); sy += Double(a) * Double(y); total += Double(a)
        }
    }
    guard total > 0 else { return nil }
    return ((minX, minY, maxX, maxY), Point(x: sx / total, y: sy / total))
}

@Suite("Text: laid out by Pango, drawn by Cairo")
struct TextTests {
    @Test("drawn text is Pango's own: the same ink, placed within a pixel, for Latin, Arabic, Devanagari and emoji", arguments: [
        "Hamburgefonstiv Wy,gjpq", "سلام عليكم", "क्षत्रिय नमस्ते", "día 1 ☀️🎉",
    ])
    func matchesPangoView(_ text: String) throws {
        let folder = temporaryFolder()
        let reference = try pangoView(text, in: folder)
        let (mine, block) = try plainLook(text).render()
        // The block is the layout's logical box; pango-view's picture is that box grown to
        // whole pixels (Pango's inclusive rounding, which may add a row or column).
        let ox = Int(block.minX.rounded(.down)), oy = Int(block.minY.rounded(.down))
        #expect(abs(Int(block.maxX.rounded(.up)) - ox - reference.width) <= 1 && abs(Int(block.maxY.rounded(.up)) - oy - reference.height) <= 1,
                "block \(block) against pango-view's \(reference.width)x\(reference.height)")
        // Pixel by pixel over pango-view's picture, at the whole-pixel offset that matches
        // best, which must be the block's within a pixel (pango-view's margin-less picture may
        // clip ink that leaves the logical box, which Segue's keeps).
        let a = alphas(mine), b = alphas(reference)
        func difference(_ dx: Int, _ dy: Int) -> (largest: Int, mean: Double) {
            var largest = 0, sum = 0, count = 0
            for y in 0..<reference.height {
                for x in 0..<reference.width {
                    let mx = x + dx, my = y + dy
                    let m = mx >= 0 && my >= 0 && mx < mine.width && my < mine.height ? a[my * mine.width + mx] : 0
                    let d = abs(m - b[y * reference.width + x])
                    largest = max(largest, d); sum += d; count += 1
                }
            }
            return (largest, Double(sum) / Double(count))
        }
        var best = (dx: 0, dy: 0, largest: Int.max, mean: Double.infinity)
        for dy in (oy - 2)...(oy + 2) {
            for dx in (ox - 2)...(ox + 2) {
                let d = difference(dx, dy)
                if d.mean < best.mean { best = (dx, dy, d.largest, d.mean) }
            }
        }
        #expect(abs(best.dx - ox) <= 1 && abs(best.dy - oy) <= 1, "Pango's ink lands at offset (\(best.dx), \(best.dy)); the block says (\(ox), \(oy))")
        #expect(best.largest <= 2 && best.mean < 0.05, "alpha differs by up to \(best.largest), \(best.mean) on average")
        let theirs = try #require(ink(reference)), ours = try #require(ink(mine))
        #expect(abs(ours.centroid.x - Double(best.dx) - theirs.centroid.x) < 0.05 && abs(ours.centroid.y - Double(best.dy) - theirs.centroid.y) < 0.05,
                "ink centroid \(ours.centroid) against pango-view's \(theirs.centroid)")
    }

    @Test("Arabic letters are joined and Devanagari conjuncts formed: their ink differs from the letters drawn apart")
    func shaping() throws {
        // A zero-width non-joiner between the letters keeps each in its isolated form.
        let joined = try #require(ink(try plainLook("سلام").render().image)), apart = try #require(ink(try plainLook("س\u{200C}ل\u{200C}ا\u{200C}م").render().image))
        #expect(joined.box.maxX - joined.box.minX + 8 < apart.box.maxX - apart.box.minX, "joined \(joined.box) against apart \(apart.box)")
        // क्ष is one conjunct glyph; with a non-joiner the virama shows and the letters stand apart.
        let conjunct = try #require(ink(try plainLook("क्ष").render().image)), halves = try #require(ink(try plainLook("क्\u{200C}ष").render().image))
        #expect(conjunct.box.maxX - conjunct.box.minX + 8 < halves.box.maxX - halves.box.minX, "conjunct \(conjunct.box) against halves \(halves.box)")
    }

    @Test("an emoji is drawn in colour though the text is white")
    func colourEmoji() throws {
        let image = try plainLook("☀️").render().image
        let coloured = image.pixels.filter { p in
            let a = Int(p >> 24), r = Int(p & 0xFF), g = Int(p >> 8 & 0xFF), b = Int(p >> 16 & 0xFF)
            return a > 200 && max(r, g, b) - min(r, g, b) > 100
        }
        #expect(coloured.count > 100, "\(coloured.count) strongly coloured pixels")
    }

    @Test("a right-to-left paragraph aligns right by nature; left and right are as seen")
    func rightToLeft() throws {
        // Two lines: a long one, then a short one.
        let text = "مرحبا بكم في لشبونة الجميلة\nسلام"
        func shortLine(_ align: TextStyle.Alignment) throws -> (minX: Int, maxX: Int, width: Int) {
            let (image, block) = try plainLook(text, align: align).render()
            // The second line's ink: the rows of the block's lower half.
            let rows = Int(block.midY.rounded())..<image.height
            var minX = Int.max, maxX = -1
            for y in rows { for x in 0..<image.width where image.pixels[y * image.width + x] >> 24 > 64 { minX = min(minX, x); maxX = max(maxX, x) } }
            return (minX, maxX, image.width)
        }
        let natural = try shortLine(.natural), left = try shortLine(.left), right = try shortLine(.right)
        #expect(natural.width - natural.maxX < 20, "natural: the short line ends at the right (\(natural))")
        #expect(right.maxX == natural.maxX)
        #expect(left.minX < 20, "left: the short line starts at the left (\(left))")
    }

    @Test("outline, box, shadow and italics are never clipped: the picture's border is clear")
    func neverClipped() throws {
        var style = TextStyle()
        style.size = 60
        style.italic = true
        style.outline = .init(width: 6, color: .black)
        style.shadow = .init(x: 5, y: 9, blur: 12, color: .black)
        for text in ["fjord Ág", "ʃʄ ƒ"] {
            let image = try TextLook(text: text, markup: false, style: style, width: nil, scale: 1, reveal: nil).render().image
            let w = image.width, h = image.height
            var border: [UInt32] = []
            for x in 0..<w { border += [image.pixels[x], image.pixels[(h - 1) * w + x]] }
            for y in 0..<h { border += [image.pixels[y * w], image.pixels[y * w + w - 1]] }
            #expect(border.allSatisfy { $0 >> 24 == 0 }, "'\(text)': ink on the picture's border")
        }
        // The outline grows the ink by its width on every side.
        var outlined = TextStyle(); outlined.size = 60; outlined.outline = .init(width: 6, color: .black)
        let plain = try #require(ink(try plainLook("Hello", size: 60).render().image, threshold: 8))
        let bold = try #require(ink(try TextLook(text: "Hello", markup: false, style: outlined, width: nil, scale: 1, reveal: nil).render().image, threshold: 8))
        let grown = (bold.box.maxX - bold.box.minX) - (plain.box.maxX - plain.box.minX)
        #expect((10...14).contains(grown), "outline of 6 grew the ink by \(grown)")
    }

    @Test("a typewriter's steps are one picture size, showing only the characters typed so far")
    func typewriter() throws {
        var style = TextStyle()
        style.size = 40
        style.box = .init(color: .black, padding: 6, radius: 4)
        let text = "abc def"
        let whole = try TextLook(text: text, markup: false, style: style, width: nil, scale: 1, reveal: nil).render()
        var widths: [Int] = []
        for reveal in 0...text.count {
            let step = try TextLook(text: text, markup: false, style: style, width: nil, scale: 1, reveal: reveal).render()
            #expect(step.image.width == whole.image.width && step.image.height == whole.image.height && step.block == whole.block)
            widths.append(ink(step.image).map { $0.box.maxX - $0.box.minX } ?? 0)
        }
        #expect(widths[0] == 0, "nothing typed, nothing drawn")
        #expect(zip(widths, widths.dropFirst()).allSatisfy { $0 <= $1 }, "the ink only grows: \(widths)")
        #expect(widths[3] < widths[7] - 40, "half typed is narrower: \(widths)")
        #expect(try TextLook(text: text, markup: false, style: style, width: nil, scale: 1, reveal: text.count).render().image.pixels == whole.image.pixels)
    }

    @Test("a typewriter over markup counts the characters Pango shows: tags gone, entities and character references one each")
    func typewriterOverMarkup() throws {
        var overlay = Overlay(text: "<b>Día</b> &amp; &#x2600;&#65039; <span foreground=\"#ff0\">1</span>", markup: true, style: TextStyle())
        #expect(overlay.plainText == "Día & ☀️ 1")
        // Characters as a reader sees them: ☀️ (sun and its variation selector) is one.
        #expect(overlay.steps == 9)
        // Pango counts scalars: after "Día & ☀️" (8 characters), 9 of them.
        #expect(overlay.stepScalars[8] == 9)
        #expect(overlay.stepScalars.count == 9 && overlay.stepScalars[0] == 0)
        overlay.appear = .init(kind: .typewriter, duration: 0.9)
        let halfway = try #require(overlay.state(at: 0.45, length: 2))
        #expect(halfway.reveal == 4)
    }

    @Test("sizes are canvas points: the same text at scale 2 is twice as large in pixels")
    func canvasPoints() throws {
        var style = TextStyle()
        style.size = 30
        let one = try TextLook(text: "Scale", markup: false, style: style, width: nil, scale: 1, reveal: nil).render()
        let two = try TextLook(text: "Scale", markup: false, style: style, width: nil, scale: 2, reveal: nil).render()
        #expect(abs(two.block.width - 2 * one.block.width) < 2 && abs(two.block.height - 2 * one.block.height) < 2)
    }

    @Test("wrapping follows the width, and markup makes spans")
    func wrapAndMarkup() throws {
        let one = try plainLook("one two three four five six", size: 30).render()
        let wrapped = try plainLook("one two three four five six", size: 30, width: 150).render()
        #expect(wrapped.block.width <= 150 && wrapped.block.height > 2.5 * one.block.height)
        let bold = try plainLook("<b>Day 1</b>", size: 40, markup: true).render(), regular = try plainLook("Day 1", size: 40).render()
        let inkBold = alphas(bold.image).reduce(0, +), inkRegular = alphas(regular.image).reduce(0, +)
        #expect(Double(inkBold) > 1.15 * Double(inkRegular), "bold markup draws heavier letters")
    }

    @Test("every family the shipped styles name is one fontconfig has (they are read unchecked at start-up)")
    func shippedFamilies() throws {
        let families = Set(TextStyle.shipped.values.flatMap { $0.font.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
        #expect(families.contains("Noto Sans Mono"))
        for family in families where !TextStyle.generic.contains(family.lowercased()) {
            #expect(Fonts.has(family: family), "\(family)")
        }
        // A preset's own style is still checked when it is read.
        let node = try ConfigNode.parse(yaml: "mine: {font: Noto Sanz Mono}", name: "test")
        #expect(throws: PresetError.self) { try TextStyle.named(node, key: "styles", over: [:]) }
    }

    @Test("a highlighted word (a range of the text) draws the pixels of the same word in a span of markup, and measures as the text does")
    func highlightIsASpan() throws {
        let yellow = Color(red: 1, green: 0.83, blue: 0)
        var look = plainLook("one twö three")
        look.highlight = Overlay.Highlight(scalars: 4..<7, color: yellow)
        let span = plainLook("one <span foreground=\"\(yellow.description)\">twö</span> three", markup: true)
        let drawn = try look.render(), expected = try span.render()
        #expect(drawn.image.pixels == expected.image.pixels && drawn.block == expected.block)
        #expect(drawn.image.pixels != (try plainLook("one twö three").render().image.pixels))
        #expect(try look.measure().size == (try plainLook("one twö three").measure().size))
    }

    @Test("a cue's text: <b>, <i> and <u> kept as Pango's and always well nested, other tags dropped, entities decoded, text escaped, timestamps at their offsets")
    func cueText() throws {
        let cue = CueText("<B>Día</b> & <c.red>one</c> &lt;two&gt; <00:01.500><i>three<u>four &amp;")
        #expect(cue.plain == "Día & one <two> threefour &")
        #expect(cue.markup == "<b>Día</b> &amp; one &lt;two&gt; <i>three<u>four &amp;</u></i>")
        #expect(cue.marks.count == 1 && cue.marks[0].offset == 16 && cue.marks[0].time == 1.5)
        // Closed across another, or closed without being open.
        let crossed = CueText("<i>a<b>b</i>c</b></u>")
        #expect(crossed.plain == "abc" && crossed.markup == "<i>a<b>b</b></i><b>c</b>")
        // 3>2 is text, and so are a < with no > after it and an & that is no entity.
        #expect(CueText("3>2").markup == "3&gt;2")
        let odd = CueText("a < b && c &nope;")
        #expect(odd.plain == "a < b && c &nope;" && odd.markup == "a &lt; b &amp;&amp; c &amp;nope;")
        // Pango parses what is made.
        for text in [cue.markup, crossed.markup, odd.markup] {
            #expect(throws: Never.self) { try TextLook(text: text, markup: true, style: TextStyle(), width: nil, scale: 1, reveal: nil).measure() }
        }
    }
}
