import CSegueAV
import Foundation

/// What decides an export's pixels and bytes, reduced to one SHA-256: Segue's version, the
/// output format and the frames chosen, the preset with every override in effect (all of
/// its values, encoder settings included), and each input's content. An output made from
/// the same fingerprint is the same file, so `--resume` may keep it instead of rendering it
/// again.
///
/// Inputs count by content, not by path or modification time: copying the photos to
/// another machine or mount point (a retried pod, another node of an array) keeps the
/// fingerprint, and editing a photo in place changes it. The fingerprint is kept with the
/// output: always in an MP4's metadata (`com.segue.fingerprint`); with `--resume`, in a PNG
/// frame folder as `.segue-fingerprint` and beside a framemd5 or yuv file or a contact sheet as
/// `.NAME.segue-fingerprint`.
public enum Fingerprint {
    /// The fingerprint of `job`, `sha256:` and 64 hex digits. Reads every input once.
    public static func of(_ job: Job) throws -> String {
        var preset = job.preset
        preset.description = ""   // words, not pixels
        var document = "segue fingerprint 1\nsegue \(SegueVersion.number)\nformat \(job.format.rawValue)\n"
        document += "frames \(job.frames?.description ?? "all")\n"
        document += "preset \(String(reflecting: preset))\n"
        document += "plan \(job.plan.map { String(reflecting: $0) } ?? "none")\n"
        for (index, input) in job.inputs.enumerated() {
            document += "input \(index + 1) \(try contentDigest(of: input))\n"
        }
        for (index, clip) in job.clips.sorted(by: { $0.key < $1.key }) {
            document += "clip \(index + 1) \(String(reflecting: clip.settings))\n"
        }
        // The music counts by content too, where it is heard (an MP4).
        if job.format == .mp4, let music = job.preset.audio.file {
            document += "audio \(try contentDigest(of: music))\n"
        }
        return "sha256:" + hex(sha256(Array(document.utf8)))
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

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Where the fingerprint of an output of `format` is kept outside the output itself, if
    /// it is (MP4s keep it inside).
    static func sidecar(for output: String, format: OutputFormat) -> String? {
        switch format {
        case .png: return output + "/.segue-fingerprint"
        case .framemd5, .yuv, .sheet:
            guard output != "-" else { return nil }
            let url = URL(fileURLWithPath: output)
            return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".segue-fingerprint"
        case .mp4, .null: return nil
        }
    }

    /// The fingerprint kept with an existing output, if any.
    public static func stored(output: String, format: OutputFormat) -> String? {
        if format == .mp4 {
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
