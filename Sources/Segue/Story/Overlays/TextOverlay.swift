import CSegueAV
import Foundation

/// Words over a page or the screen, in a text style, as plain text or Pango markup: laid out
/// when the storyboard is made, drawn by Pango and Cairo when a frame first needs it, and a
/// typewriter's steps each a picture of its own.
extension OverlayKind {
    static let text = OverlayKind(
        name: "text", key: "text",
        heading: "Text overlays (`overlays:` items of a slide or a story)",
        about: """
            A slide's overlays ride on its page; a story's are fixed to the screen, their `start`
            and `end` counted from the video's start. The style keys start from the preset's
            `text` (or the named `style`).
            """,
        sample: "x", read: readText, place: placeText,
        label: { "the text '\($0.text.prefix(40))'" }, shortLabel: { $0.text },
        stills: { _ in [] }, changesWithTime: { _ in false },
        fingerprint: { overlay, document in
            // A text or style the overlay before had too is said once: comparing the same
            // string costs nothing, writing it again its length.
            var members: [String: Canonical] = [
                "markup": .flag(overlay.markup), "width": .optional(overlay.width), "shown": .optional(overlay.shown.map(Double.init)),
                "highlight": overlay.highlight.map { .string("\($0.scalars.lowerBound)..<\($0.scalars.upperBound) \($0.color)") } ?? .string("none"),
            ]
            if document.lastText == overlay.text { members["sameText"] = .flag(true) } else { members["text"] = .string(overlay.text) }
            if document.lastStyle == overlay.style { members["sameStyle"] = .flag(true) } else { members["style"] = .style(overlay.style) }
            (document.lastText, document.lastStyle) = (overlay.text, overlay.style)
            return members
        })

    private static func readText(_ r: inout ConfigReader, item: ConfigNode, reading: OverlayReading) throws -> Overlay {
        let others = OverlayKind.all.filter { $0.key != "text" }.map { "\($0.key): a \($0.name)'s file" }
        let text = try r.requiredText("text", expected: "the words to show" + (others.isEmpty ? "" : " (or \(others.joined(separator: ", ")))"),
                                      "The words: UTF-8, any script, emoji; Pango markup when markup is true.")
        if let problem = Overlay.lengthProblem(text) {
            throw PresetError.invalid(key: r.fullKey("text"), origin: item["text"]!.origin, value: "'\(shortened(text))'", expected: problem)
        }
        var style = reading.base
        if let name = r.raw("style", type: "text", "A named style (classic, modern, neon, typewriter, strong, caption, or one of the preset's or story's styles); the keys below change it.") {
            style = try TextStyle.named(name, key: r.fullKey("style"), among: reading.styles)
        }
        try style.read(&r, resolve: reading.resolve)
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
        try Overlay.readPlacement(&r, item: item, into: &overlay)
        return overlay
    }

    private static func placeText(_ overlay: Overlay, number: Int, making: inout OverlayPictures.Making) throws -> OverlayPictures.Placed {
        let canvas = making.canvas
        let look = overlay.look(pageWidth: canvas.bounds.width, scale: canvas.scale)
        let (size, block) = try making.measure(look.layout)
        let source = PictureSource.overlay(number)
        making.make(source) { _ in try look.render().image }
        var placed = OverlayPictures.Placed(overlay: overlay, source: source, size: size, block: block, drawn: size,
                                            safe: overlay.placed ? EdgeInsets() : canvas.safeArea)
        if overlay.appear.kind == .typewriter || overlay.disappear.kind == .typewriter {
            placed.steps = overlay.steps
            for (step, typed) in overlay.stepScalars.enumerated() {
                let look = overlay.look(pageWidth: canvas.bounds.width, scale: canvas.scale, typed: typed)
                making.make(.overlay(number, step: step)) { _ in try look.render().image }
            }
        }
        return placed
    }
}

extension Canonical {
    static func style(_ s: TextStyle) -> Canonical {
        .object(["font": .string(s.font), "size": .number(s.size), "weight": .number(Double(s.weight)), "italic": flag(s.italic),
                 "color": .string(s.color.description), "align": .string(s.align.rawValue), "lineSpacing": .number(s.lineSpacing),
                 "letterSpacing": .number(s.letterSpacing),
                 "outline": s.outline.map { .object(["width": .number($0.width), "color": .string($0.color.description)]) } ?? .string("none"),
                 "box": s.box.map { .object(["color": .string($0.color.description), "padding": .number($0.padding), "radius": .number($0.radius)]) } ?? .string("none"),
                 "shadow": s.shadow.map { .object(["x": .number($0.x), "y": .number($0.y), "blur": .number($0.blur), "color": .string($0.color.description)]) } ?? .string("none")])
    }
}
