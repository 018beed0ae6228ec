import Foundation

/// A light leak (`LightLeak`): glows and a flare drawn by Segue over the whole canvas for
/// every frame it shows, laid over the story by `screen` unless `blend` says otherwise.
extension OverlayKind {
    static let leak = OverlayKind(
        name: "leak", key: "leak",
        heading: "Light leaks (`overlays:` items with `leak:`)",
        about: """
            Soft coloured glows and a flare streak drifting over the frame, as film's leaks
            look, drawn by Segue at the canvas's size, the same for the same seed; laid over
            the story with blend: screen. `leak:` is a palette (warm, cool, gold, rose, white)
            or a mapping of seed, color, start, duration and intensity.
            """,
        sample: "warm", read: readLeak, place: placeLeak,
        label: { "the light leak \(describe($0))" }, shortLabel: { "leak \(describe($0))" },
        stills: { _ in [] }, changesWithTime: { _ in true },
        fingerprint: { overlay, _ in
            guard let leak = overlay.leak else { return [:] }
            return ["leak": .object(["seed": .number(Double(leak.seed)), "color": .string(leak.palette.rawValue), "intensity": .number(leak.intensity)])]
        })

    private static func describe(_ overlay: Overlay) -> String {
        guard let leak = overlay.leak else { return "" }
        return "\(leak.palette.rawValue), seed \(leak.seed)"
    }

    private static func readLeak(_ r: inout ConfigReader, item: ConfigNode, reading: OverlayReading) throws -> Overlay {
        let palettes = LightLeak.Palette.allCases.map(\.rawValue)
        guard let node = r.raw("leak", type: "text or mapping", default: "warm",
                               "A light leak: a palette (\(palettes.joined(separator: ", "))), or {seed, color, start, duration, intensity}.") else {
            preconditionFailure("a leak overlay read without its leak key")
        }
        var leak = LightLeak()
        var span: Span?
        if case let .scalar(name, _) = node.value {
            guard let palette = LightLeak.Palette(rawValue: name) else {
                throw PresetError.invalid(key: r.fullKey("leak"), origin: node.origin, value: "'\(name)'",
                                          expected: "one of: \(palettes.joined(separator: ", ")), or {seed, color, start, duration, intensity}")
            }
            leak.palette = palette
        } else {
            var l = try ConfigReader(node, path: r.fullKey("leak"))
            l.schema = r.schema
            leak.seed = try l.integer("seed", default: 1, in: 0...Int(Int32.max), "Which leak: the same seed, the same glows and flare.")
            leak.palette = LightLeak.Palette(rawValue: try l.choice("color", default: "warm", among: palettes, "The leak's palette."))!
            let start = try l.number("start", default: 0, in: 0...86400, "Seconds (as an overlay's start) when it begins.")
            let duration = try l.number("duration", default: 1.5, in: 0.04...86400, "Seconds it lasts, rising and falling.")
            leak.intensity = try l.number("intensity", default: 0.8, in: 0...1, "How bright it is at its height.")
            try l.finish()
            span = Span(start: start, end: .at(start + duration))
        }
        var overlay = Overlay(leak: leak)
        overlay.width = nil
        if let span { overlay.span = span }
        try Overlay.readPlacement(&r, item: item, into: &overlay)
        return overlay
    }

    private static func placeLeak(_ overlay: Overlay, number: Int, making: inout OverlayPictures.Making) throws -> OverlayPictures.Placed {
        guard let leak = overlay.leak else { preconditionFailure("a leak overlay without its leak") }
        let canvas = making.canvas, source = PictureSource.overlay(number, animated: true)
        let (width, height) = LightLeak.pictureSize(width: canvas.width, height: canvas.height)
        making.make(source) { u in leak.picture(at: u, width: width, height: height) }
        let drawn = Size(width: Double(canvas.width), height: Double(canvas.height))
        return OverlayPictures.Placed(overlay: overlay, source: source, size: Size(width: Double(width), height: Double(height)),
                                      block: Rect(size: drawn), drawn: drawn)
    }
}
