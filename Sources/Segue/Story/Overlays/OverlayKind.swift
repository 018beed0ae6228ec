import Foundation

/// One kind of overlay (text, a sticker), described once: the key of an `overlays:` item that
/// makes one and how the rest of the item is read, how its picture is made and laid out, and
/// how messages, the fingerprint, a batch's shared pictures, the preview's segments and its
/// timeline count it. Where an overlay sits, when it shows and how it comes and goes are
/// every kind's (`Overlay`, read by `Overlay.readPlacement`).
///
/// Adding a kind is its content's case in `Overlay.Content` (what it shows, and its name),
/// one file in `Story/Overlays/` (its descriptor, as `TextOverlay.swift`) and one line in `all`.
struct OverlayKind: Sendable {
    /// Its name (`Overlay.Content.kind`), as the preview's timeline and the layers say it.
    let name: String
    /// The key of an `overlays:` item that makes one of this kind.
    let key: String
    /// Its section of the reference (`segue presets reference`): its heading and what it is.
    let heading: String
    let about: String
    /// A value of `key` that makes an item of this kind, for the reference's read of its keys.
    let sample: String
    /// Reads an item of this kind.
    let read: @Sendable (inout ConfigReader, ConfigNode, OverlayReading) throws -> Overlay
    /// Lays out the overlay numbered `n` among the job's overlays: its picture's source and
    /// size, and how its pictures are made (put in the `OverlayPictures.Making`).
    let place: @Sendable (Overlay, _ n: Int, inout OverlayPictures.Making) throws -> OverlayPictures.Placed
    /// How messages and the preview name it: "the text 'Day 1'", "the sticker logo.png".
    let label: @Sendable (Overlay) -> String
    /// What the preview's timeline shows of it: its words, its file's name.
    let shortLabel: @Sendable (Overlay) -> String
    /// Files its picture is decoded from whole and the same at every time (a still
    /// sticker's): the jobs of a batch decode each once.
    let stills: @Sendable (Overlay) -> [String]
    /// Whether its picture changes with the video's time (an animated sticker): a preview's
    /// segment that shows it counts its clock.
    let changesWithTime: @Sendable (Overlay) -> Bool
    /// Its own members of the fingerprint's document, files counted by content.
    let fingerprint: @Sendable (Overlay, inout OverlayDocument) throws -> [String: Canonical]

    /// Every kind, the first whose key an item has making it (text when it has none).
    static let all: [OverlayKind] = [.text, .sticker, .leak]

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The kind of `overlay`.
    static func of(_ overlay: Overlay) -> OverlayKind { byName[overlay.content.kind]! }
}

/// What reading an overlay takes besides its item: the text style it starts from and the
/// named ones, how font files are found, and the limits files are read within.
struct OverlayReading {
    var base: TextStyle
    var styles: [String: TextStyle]
    var resolve: (String) -> String
    var limits: Limits
}

/// What the fingerprint's document of a job's overlays carries from one overlay to the next:
/// a text or style said once for overlays that repeat it (a caption's words share their cue's
/// string), a file's digest made once.
struct OverlayDocument {
    var lastText: String?
    var lastStyle: TextStyle?
    private var digests: [String: String] = [:]
    private let digest: (String) throws -> String

    init(digest: @escaping (String) throws -> String) { self.digest = digest }

    /// The digest of the file at `path`, by content.
    mutating func file(_ path: String) throws -> String {
        if let known = digests[path] { return known }
        let made = try digest(path)
        digests[path] = made
        return made
    }

    /// The document of `overlay`: where it sits, when it shows and how it comes and goes,
    /// with its kind's own members; `safeArea` tells whether being placed by hand counts.
    mutating func object(_ overlay: Overlay, safeArea: Bool) throws -> Canonical {
        let kind = OverlayKind.of(overlay)
        var members: [String: Canonical] = [
            "kind": .string(kind.name), "at": .point(overlay.at), "anchor": .point(overlay.anchor), "rotation": .number(overlay.rotation),
            "start": .number(overlay.span.start), "end": .optional(overlay.span.endTime), "appear": .appearance(overlay.appear),
            "disappear": .appearance(overlay.disappear), "opacity": .number(overlay.opacity),
        ]
        // Placed by hand, it keeps out of nothing: only a safe area tells the two apart.
        if overlay.placed, safeArea { members["placed"] = .flag(true) }
        if overlay.blend != .normal { members["blend"] = .string(overlay.blend.rawValue) }
        members.merge(try kind.fingerprint(overlay, &self)) { _, own in own }
        return .object(members)
    }
}

extension Canonical {
    static func point(_ p: Point) -> Canonical { .array([.number(p.x), .number(p.y)]) }

    static func appearance(_ a: Overlay.Appearance) -> Canonical {
        .object(["kind": .string(a.kind.rawValue), "duration": optional(a.duration)])
    }
}

extension Overlay {
    /// What a timeline shows of it, as its kind says: its words, its file's name.
    public var summary: String { OverlayKind.of(self).shortLabel(self) }

    /// Reads an `overlays:` list, each item of the kind its key names (`OverlayKind.all`),
    /// every problem of every item thrown together. Text starts from `base` (a named `style`
    /// replaces it); font files are found by `resolve`.
    public static func list(_ node: ConfigNode, key: String, base: TextStyle, styles: [String: TextStyle],
                            resolve: @escaping (String) -> String = { $0 }, limits: Limits = Limits()) throws -> [Overlay] {
        guard case let .sequence(items) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: ConfigReader.kind(of: node),
                                        expected: "a list of overlays, each with \(OverlayKind.all.map(\.key).joined(separator: " or "))")
        }
        let reading = OverlayReading(base: base, styles: styles, resolve: resolve, limits: limits)
        var overlays: [Overlay] = [], problems: [PresetError] = []
        for (index, item) in items.enumerated() {
            do { overlays.append(try read(item, key: "\(key)[\(index + 1)]", reading: reading)) } catch let error as PresetError {
                problems += error.all
            }
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        return overlays
    }

    /// One overlay, of the first kind whose key the item has (text when it has none).
    static func read(_ item: ConfigNode, key: String, reading: OverlayReading, schema: ConfigReader.Schema? = nil) throws -> Overlay {
        var r = try ConfigReader(item, path: key)
        r.schema = schema
        let kind = OverlayKind.all.first { item[$0.key] != nil } ?? OverlayKind.all[0]
        return try kind.read(&r, item, reading)
    }
}
