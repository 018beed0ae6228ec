import CSegueAV
import Foundation

/// What every overlay's item says of where and when it shows (`readPlacement`), and a
/// sticker's own keys, its file probed as it is read (a preset's logo is one; the story
/// room's `OverlayKind` reads the other kinds).
extension Overlay {
    static let anchors: [String: Point] = [
        "center": Point(x: 0.5, y: 0.5), "top": Point(x: 0.5, y: 0), "bottom": Point(x: 0.5, y: 1),
        "left": Point(x: 0, y: 0.5), "right": Point(x: 1, y: 0.5), "top-left": Point(x: 0, y: 0), "top-right": Point(x: 1, y: 0),
        "bottom-left": Point(x: 0, y: 1), "bottom-right": Point(x: 1, y: 1),
    ]

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
    static func readPlacement(_ r: inout ConfigReader, item: ConfigNode, into overlay: inout Overlay) throws {
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
        let blend = try r.choice("blend", default: overlay.blend.rawValue, among: BlendMode.names,
                                 "How it is laid over what is beneath (W3C Compositing and Blending): normal, screen, add, multiply, overlay, soft-light, lighten, darken, difference.")
        overlay.blend = BlendMode(rawValue: blend)!
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
