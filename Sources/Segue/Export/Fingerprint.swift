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
    static let version = "4"

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
        // Holds moved onto the beat: a story's are its plan's; the preset's are said here.
        if let beats = job.beats, !beats.placed.isEmpty, job.plan == nil {
            fields["beats"] = .array(job.timeline.holds.map(Canonical.number))
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
        // Text, stickers and captions, every key of every overlay (absent when there is none),
        // each as its kind writes it (`OverlayKind`). A sticker counts by content, as inputs do:
        // each file is read once.
        let screen = job.shownScreenOverlays
        if job.overlays.contains(where: { !$0.isEmpty }) || !screen.isEmpty {
            var document = OverlayDocument(digest: contentDigest(of:))
            let safeArea = !job.preset.canvas.safeArea.isZero
            fields["overlays"] = .object([
                "slides": .array(try job.overlays.map { .array(try $0.map { try document.object($0, safeArea: safeArea) }) }),
                "screen": .array(try screen.map { try document.object($0, safeArea: safeArea) }),
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
        if Paths.found(path) == .folder {
            // A folder of PNGs (a stinger's frames): its files' names and digests, in order.
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.lowercased().hasSuffix(".png") }.sorted()
            let listing = try names.map { "\($0) \(try contentDigest(of: (path as NSString).appendingPathComponent($0)))\n" }.joined()
            return "sha256:" + hex(sha256(Array(listing.utf8)))
        }
        let read = {
            var digest = [UInt8](repeating: 0, count: 32)
            var error = SegueAVError()
            guard segue_sha256_file(path, &digest, &error) == 0 else {
                throw ExportError.unreadableImage(path: path, reason: error.text)
            }
            WorkCounts.add(.filesHashed)
            return "sha256:" + hex(digest)
        }
        return try contents.value(of: path, read) ?? read()
    }

    /// Files' digests kept while each file is unchanged (and was left alone for two seconds
    /// before it was read): a service's or a preview's photo, logo or music, named again and
    /// again, is read once.
    private static let contents = ByFile<String>(settledOnly: true)

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

/// The parts of a job's document only the fingerprint writes.
extension Canonical {
    static func transition(_ t: Preset.TransitionSettings) -> Canonical {
        var fields: [String: Canonical] = ["kind": .string(t.kind), "duration": .number(t.duration), "curve": .string(t.curve.description),
                 "parameters": .object(Dictionary(uniqueKeysWithValues: t.values.pairs.map { ($0.key, parameter($0.value)) }))]
        fields["motionBlur"] = blur(t.motionBlur)
        return .object(fields)
    }

    static func motion(_ m: Motion) -> Canonical {
        var fields: [String: Canonical] = ["kind": .string(m.kind.rawValue), "amount": .number(m.amount), "curve": .string(m.curve.description),
                 "center": .array([.number(m.center.x), .number(m.center.y)])]
        fields["motionBlur"] = blur(m.motionBlur)
        return .object(fields)
    }

    /// Nothing for no blur, so that fingerprints made before motion blur stay as they were.
    static func blur(_ b: MotionBlur) -> Canonical? {
        b.isOff ? nil : .object(["shutter": .number(b.shutter), "samples": b.samples.map { .number(Double($0)) } ?? .string("auto")])
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
}
