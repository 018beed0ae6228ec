import CSegueAV
import Foundation

/// What decides an export's pixels and bytes, reduced to one SHA-256: Segue's version, the
/// output format and the frames chosen, the preset with every override in effect (all of
/// its values, encoder settings included), each slide's hold, motion and cut, each clip's
/// part, and each input's content. An output made from the same fingerprint is the same
/// file, so `--resume` may keep it instead of rendering it again.
///
/// The fingerprint is the SHA-256 of a canonical JSON document (`document(of:)`): an object
/// whose keys are sorted, with no white space, every number written as a string in its
/// shortest form that reads back exactly (`0.5`, `30`, `1e-05`), colors as `#RRGGBB` or
/// `#RRGGBBAA`, and each input as `sha256:HEX` of its bytes. Its `"fingerprint"` member names
/// the format's version; a change to what the document holds is a new version.
///
/// Inputs count by content, not by path or modification time: copying the photos to
/// another machine or mount point (a retried pod, another node of an array) keeps the
/// fingerprint, and editing a photo in place changes it. The fingerprint is kept with the
/// output: always in an MP4's metadata (`com.segue.fingerprint`); with `--resume`, in a PNG
/// frame folder as `.segue-fingerprint` and beside a framemd5 or yuv file or a contact sheet as
/// `.NAME.segue-fingerprint`.
public enum Fingerprint {
    /// The version of the document's format.
    static let version = "3"

    /// The fingerprint of `job`, `sha256:` and 64 hex digits. Reads every input once.
    /// `cancellation` stops it between two files (`ExportError.cancelled`).
    /// `digests` keeps each file's digest for the jobs after this one (a batch's shared photo,
    /// logo or music is read once while its rows are planned).
    public static func of(_ job: Job, cancellation: Cancellation? = nil, digests: Digests? = nil) throws -> String {
        "sha256:" + hex(sha256(Array(try document(of: job, cancellation: cancellation, digests: digests).utf8)))
    }

    /// Files' digests by path, kept while a batch is planned.
    public final class Digests: Sendable {
        private let known = Locked<(digests: [String: String], reads: Int)>(([:], 0))

        public init() {}

        /// How many files were read.
        var reads: Int { known.withLock { $0.reads } }

        /// The digest of the file at `path`, read the first time it is asked for.
        func of(_ path: String) throws -> String {
            if let digest = known.withLock({ $0.digests[path] }) { return digest }
            let digest = try Fingerprint.contentDigest(of: path)
            WorkCounts.add(.filesDigested)
            known.withLock {
                $0.digests[path] = digest
                $0.reads += 1
            }
            return digest
        }
    }

    /// The canonical JSON document the fingerprint is the digest of.
    static func document(of job: Job, cancellation: Cancellation? = nil, digests: Digests? = nil) throws -> String {
        Canonical.object(try fields(of: job, cancellation: cancellation, digests: digests)).text
    }

    /// The document's members (`Segments` keys a preview's parts by some of them).
    static func fields(of job: Job, cancellation: Cancellation? = nil, digests: Digests? = nil) throws -> [String: Canonical] {
        func contentDigest(of path: String) throws -> String {
            if cancellation?.isCancelled == true { throw ExportError.cancelled }
            return try digests?.of(path) ?? Fingerprint.contentDigest(of: path)
        }
        let p = job.preset
        var fields: [String: Canonical] = [
            "fingerprint": .string(version),
            "segue": .string(SegueVersion.number),
            "format": .string(job.format.rawValue),
            "frames": .string(job.frames?.description ?? "all"),
            "canvas": .object(["width": .number(Double(p.canvas.width)), "height": .number(Double(p.canvas.height)),
                               "scale": .number(p.canvas.scale), "background": .string(p.canvas.background.description)]
                              // Only when set, so that fingerprints without one stay as they were.
                              .merging(p.canvas.safeArea.isZero ? [:] : ["safeArea": .array([p.canvas.safeArea.top, p.canvas.safeArea.right, p.canvas.safeArea.bottom, p.canvas.safeArea.left].map { .number($0) })]) { a, _ in a }),
            "fps": p.fps.denominator == 1 ? .number(Double(p.fps.numerator)) : .string(p.fps.description),
            "hold": .number(p.hold),
            "fit": .string(p.fit.rawValue),
            "transition": .transition(p.transition),
            "motion": .motion(p.motion),
            "encode": .object(["codec": .string(p.encode.codec.rawValue), "crf": .number(Double(p.encode.crf)),
                               "speed": .string(p.encode.speed), "threads": .number(Double(p.encode.threads))]
                              // Only when set, so that the default's fingerprints stay as they were.
                              .merging(p.encode.deterministic ? [:] : ["deterministic": .string("false")]) { a, _ in a }
                              .merging(p.encode.maxRate == 0 ? [:] : ["maxRate": .number(Double(p.encode.maxRate))]) { a, _ in a }
                              .merging(p.encode.gop == 0 ? [:] : ["gop": .number(Double(p.encode.gop))]) { a, _ in a }
                              .merging(p.encode.bframes < 0 ? [:] : ["bframes": .number(Double(p.encode.bframes))]) { a, _ in a }),
            "inputs": .array(try job.inputs.map { .string(try contentDigest(of: $0)) }),
        ]
        if let plan = job.plan {
            fields["plan"] = .object([
                "holds": .array(plan.holds.map(Canonical.number)),
                "motions": .array(plan.motions.map(Canonical.motion)),
                "cuts": .array(plan.cuts.map { $0.settings.map(Canonical.transition) ?? .string("cut") }),
            ])
        }
        if !job.clips.isEmpty {
            fields["clips"] = .object(Dictionary(uniqueKeysWithValues: job.clips.map { index, clip in
                let s = clip.settings
                var part: [String: Canonical] = ["start": .number(s.part.start), "audio": .string(s.audio ? "true" : "false"), "volume": .number(s.volume)]
                if let duration = s.part.length { part["duration"] = .number(duration) }
                return (String(index + 1), Canonical.object(part))
            }))
        }
        // Slides that fill their pages their own way.
        if job.fills.contains(where: { $0.fit != p.fit || $0.background != p.canvas.background }) {
            fields["fills"] = .array(job.fills.map { .string("\($0.fit.rawValue) \($0.background)") })
        }
        // Text, stickers and captions, every key of every overlay (absent when there is none).
        // A sticker counts by content, as inputs do: each file is read once.
        let screen = job.shownScreenOverlays
        if job.overlays.contains(where: { !$0.isEmpty }) || !screen.isEmpty {
            var stickerDigests: [String: String] = [:]
            // A text the overlay before had too (a caption's words, sharing their cue's string)
            // is said once: comparing the same string costs nothing, writing it again its length.
            var lastText: String?, lastStyle: TextStyle?
            func overlay(_ o: Overlay) throws -> Canonical {
                // So is a style (a transcript's cues share the caption style).
                let text: [String: Canonical] = (lastText == o.text ? ["sameText": .flag(true)] : ["text": .string(o.text)])
                    .merging(lastStyle == o.style ? ["sameStyle": .flag(true)] : ["style": .style(o.style)]) { a, _ in a }
                (lastText, lastStyle) = (o.text, o.style)
                let sticker = try o.sticker.map { s -> Canonical in
                    if stickerDigests[s.path] == nil { stickerDigests[s.path] = try contentDigest(of: s.path) }
                    return .object(["file": .string(stickerDigests[s.path]!), "width": .optional(s.width), "height": .optional(s.height),
                                    "loop": .flag(s.loop), "frames": .number(Double(s.frames))])
                }
                return .object(["sticker": sticker ?? .string("none"), "markup": .flag(o.markup),
                                "at": .point(o.at), "anchor": .point(o.anchor), "width": .optional(o.width),
                                "rotation": .number(o.rotation), "start": .number(o.span.start), "end": .optional(o.span.endTime),
                                "appear": .appearance(o.appear), "disappear": .appearance(o.disappear), "opacity": .number(o.opacity),
                                "shown": .optional(o.shown.map(Double.init)),
                                "highlight": o.highlight.map { .string("\($0.scalars.lowerBound)..<\($0.scalars.upperBound) \($0.color)") } ?? .string("none")]
                               .merging(text) { a, _ in a }
                               // Placed by hand, it keeps out of nothing: only a safe area tells the two apart.
                               .merging(o.placed && !job.preset.canvas.safeArea.isZero ? ["placed": .flag(true)] : [:]) { a, _ in a })
            }
            fields["overlays"] = .object([
                "slides": .array(try job.overlays.map { .array(try $0.map(overlay)) }),
                "screen": .array(try screen.map(overlay)),
            ])
        }
        // The output's own settings (a GIF's palette, a WebP's quality) where they are used.
        fields.merge(job.format.fingerprintFields(p)) { a, _ in a }
        // The soundtrack counts where it is heard (a video with sound), its music by content.
        if job.format.hasSound {
            let a = p.audio
            var audio: [String: Canonical] = ["start": .number(a.start), "volume": .number(a.volume), "fadeIn": .number(a.fadeIn),
                                              "fadeOut": .number(a.fadeOut), "loop": .string(a.loop ? "true" : "false"),
                                              "duck": .number(a.duck), "attack": .number(a.attack), "release": .number(a.release),
                                              "loudness": .number(a.loudness ?? 0), "truePeak": .number(a.truePeak)]
            switch a.source {
            case nil: audio["source"] = .string("none")
            case .silence: audio["source"] = .string("silence")
            case let .file(path): audio["source"] = .string(try contentDigest(of: path))
            }
            if !job.voices.isEmpty {
                audio["voices"] = .array(try job.voices.map { voice in
                    var fields: [String: Canonical] = ["file": .string(try contentDigest(of: voice.file)), "at": .number(voice.at),
                                                       "volume": .number(voice.volume), "start": .number(voice.part.start)]
                    if let duration = voice.part.length { fields["duration"] = .number(duration) }
                    return .object(fields)
                })
            }
            fields["audio"] = .object(audio)
        }
        return fields
    }

    /// The SHA-256 of a file's bytes, as `sha256:HEX`.
    static func contentDigest(of path: String) throws -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var error = SegueAVError()
        guard segue_sha256_file(path, &digest, &error) == 0 else {
            throw ExportError.unreadableImage(path: path, reason: error.text)
        }
        return "sha256:" + hex(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Where the fingerprint of an output of `format` is kept outside the output itself, if
    /// it is (MP4, WebM and MOV files keep it inside).
    static func sidecar(for output: String, format: OutputFormat) -> String? {
        switch format.sidecar {
        case .inFolder: return output + "/.segue-fingerprint"
        case .besideFile:
            guard output != "-" else { return nil }
            let url = URL(fileURLWithPath: output)
            return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".segue-fingerprint"
        case .none: return nil
        }
    }

    /// The fingerprint kept with an existing output, if any.
    public static func stored(output: String, format: OutputFormat) -> String? {
        if format.keepsFingerprintInside {
            var buffer = [CChar](repeating: 0, count: 256)
            guard FileManager.default.fileExists(atPath: output),
                  segue_media_tag(output, SEGUE_FINGERPRINT_TAG, &buffer, buffer.count) == 0 else { return nil }
            return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        guard let sidecar = sidecar(for: output, format: format), FileManager.default.fileExists(atPath: output),
              let text = try? String(contentsOfFile: sidecar, encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// SHA-256 of bytes in memory, through FFmpeg's implementation.
func sha256(_ bytes: [UInt8]) -> [UInt8] {
    let context = segue_sha256_begin()
    bytes.withUnsafeBufferPointer { segue_sha256_update(context, $0.baseAddress, $0.count) }
    var digest = [UInt8](repeating: 0, count: 32)
    segue_sha256_end(context, &digest)
    return digest
}

/// A value of the fingerprint's canonical JSON: objects are written with their keys sorted
/// (by their UTF-8 bytes) and no white space, numbers as strings (`Double`'s shortest
/// round-trip form), so the text depends on nothing but the values.
enum Canonical {
    case string(String)
    case number(Double)
    case array([Canonical])
    case object([String: Canonical])

    static func transition(_ t: Preset.TransitionSettings) -> Canonical {
        .object(["kind": .string(t.kind), "duration": .number(t.duration), "curve": .string(t.curve.description),
                 "parameters": .object(Dictionary(uniqueKeysWithValues: t.values.pairs.map { ($0.key, parameter($0.value)) }))])
    }

    static func motion(_ m: Motion) -> Canonical {
        .object(["kind": .string(m.kind.rawValue), "amount": .number(m.amount), "curve": .string(m.curve.description),
                 "center": .array([.number(m.center.x), .number(m.center.y)])])
    }

    static func flag(_ value: Bool) -> Canonical { .string(value ? "true" : "false") }

    /// A number, or `none` where it is not set.
    static func optional(_ value: Double?) -> Canonical { value.map(Canonical.number) ?? .string("none") }

    static func point(_ p: Point) -> Canonical { .array([.number(p.x), .number(p.y)]) }

    static func appearance(_ a: Overlay.Appearance) -> Canonical {
        .object(["kind": .string(a.kind.rawValue), "duration": optional(a.duration)])
    }

    static func style(_ s: TextStyle) -> Canonical {
        .object(["font": .string(s.font), "size": .number(s.size), "weight": .number(Double(s.weight)), "italic": flag(s.italic),
                 "color": .string(s.color.description), "align": .string(s.align.rawValue), "lineSpacing": .number(s.lineSpacing),
                 "letterSpacing": .number(s.letterSpacing),
                 "outline": s.outline.map { .object(["width": .number($0.width), "color": .string($0.color.description)]) } ?? .string("none"),
                 "box": s.box.map { .object(["color": .string($0.color.description), "padding": .number($0.padding), "radius": .number($0.radius)]) } ?? .string("none"),
                 "shadow": s.shadow.map { .object(["x": .number($0.x), "y": .number($0.y), "blur": .number($0.blur), "color": .string($0.color.description)]) } ?? .string("none")])
    }

    static func parameter(_ value: ParameterValue) -> Canonical {
        switch value {
        case let .number(v): return .number(v)
        case let .integer(v): return .number(Double(v))
        case let .flag(v): return .string(v ? "true" : "false")
        case let .text(v): return .string(v)
        case let .color(v): return .string(v.description)
        case let .numbers(v): return .array(v.map(Canonical.number))
        }
    }

    /// The canonical JSON text: objects' keys in the order of their UTF-8 bytes, written into
    /// one string (a story of 100,000 cues is one text of a few megabytes).
    var text: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case let .string(s): Canonical.quote(s, into: &out)
        case let .number(v): Canonical.quote(v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)", into: &out)
        case let .array(items):
            out += "["
            for (k, item) in items.enumerated() {
                if k > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case let .object(fields):
            out += "{"
            for (k, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if k > 0 { out += "," }
                Canonical.quote(key, into: &out)
                out += ":"
                fields[key]!.write(into: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string: quotes, backslashes and control characters escaped.
    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        // The runs between characters to escape, appended whole (most texts have none).
        let bytes = s.utf8
        var start = bytes.startIndex
        for i in bytes.indices {
            let byte = bytes[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out += s[start..<i]
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            default: out += String(format: "\\u%04x", byte)
            }
            start = bytes.index(after: i)
        }
        out += s[start...]
        out += "\""
    }
}
