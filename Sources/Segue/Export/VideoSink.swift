import CSegueAV
import Foundation

/// What a video output is encoded with: the container, FFmpeg's encoders, and the pixel format
/// the picture encoder gets.
public struct VideoEncoding: Equatable, Sendable {
    /// FFmpeg's muxer: mp4, webm, mov or webp.
    public var container: String
    /// FFmpeg's video encoder: libx264, libx265, libvpx-vp9, prores_ks or libwebp_anim.
    public var codec: String
    /// Its input: yuv420p, or, keeping alpha or for ProRes, yuva420p, yuv422p10le, yuva444p10le.
    public var pixelFormat: String
    /// The sound's encoder: aac, or libopus in WebM.
    public var audioCodec: String
    /// The encoder's quality setting: x264's, x265's or VP9's CRF, or libwebp's quality.
    public var quality: Int

    /// What the encoder reads of the composed frames: the yuv420p copy the compositor makes
    /// band by band, or the RGBA pixels (converted, with alpha straightened, in the shim).
    var reads: FrameForm { pixelFormat == "yuv420p" ? .yuv420p : .rgba }
}

/// A video file through FFmpeg: H.264 or HEVC in MP4, VP9 and Opus in WebM, ProRes in MOV, an
/// animated WebP. An encoder of yuv420p takes the compositor's yuv420p frames; one that keeps
/// alpha (or ProRes) takes the RGBA frames, straightened and converted in the shim.
public final class VideoSink: FrameSink {
    private let file: StagedFile
    private let format: OutputFormat
    private let fingerprint: String?
    private var encoder: OpaquePointer?
    /// Where a frame without a yuv420p copy is converted.
    private var spare: YUVFrame?
    /// Where a frame with alpha is straightened.
    private var straight: [UInt32] = []
    /// An opaque background: every pixel is opaque, so frames go to the encoder as they are.
    private let opaque: Bool
    public let reads: FrameForm

    /// `fingerprint`, if given, is kept in the file's metadata (see `Fingerprint`), or beside
    /// a WebP; `chunk` marks a chunk of a longer video (`Chunks`); an existing file at `path`
    /// is replaced only with `replace`. `soundtrack`, when
    /// it has a track and the format has sound, adds a track exactly as long as the `frames`
    /// frames of the video.
    public init(path: String, format: OutputFormat, preset: Preset, soundtrack: Soundtrack = Soundtrack(music: Preset.AudioSettings()),
                frames: Int = 0, fingerprint: String? = nil, chunk: String? = nil, replace: Bool = false) throws {
        guard let encoding = format.encoding(preset) else { preconditionFailure("\(format) is not a video") }
        file = try StagedFile(target: path, replace: replace)
        self.format = format
        self.fingerprint = fingerprint
        reads = encoding.reads
        opaque = !preset.canvas.isTransparent
        let encode = preset.encode, webp = preset.webp, canvas = preset.canvas
        var error = SegueAVError()
        let texts = [file.temporary, encoding.container, encoding.codec, encoding.pixelFormat, encode.speed,
                     format.keepsFingerprintInside ? fingerprint : nil, chunk]
        let opened = withCStrings(texts) { c in
            soundtrack.withConfig { track in
                var config = SegueEncoderConfig(
                    path: c[0], format_name: c[1], codec_name: c[2], pixel_format: c[3],
                    width: Int32(canvas.width), height: Int32(canvas.height),
                    fps_num: Int32(preset.fps.numerator), fps_den: Int32(preset.fps.denominator),
                    crf: Int32(encoding.quality), max_rate: Int32(encode.maxRate),
                    gop: Int32(encode.gop), bframes: Int32(encode.bframes),
                    loop: Int32(webp.loop), lossless: webp.lossless ? 1 : 0, speed: c[4], threads: Int32(encode.threads),
                    fingerprint: c[5], chunk: c[6], audio: format.hasSound && soundtrack.hasTrack ? track : nil,
                    frames: Int64(frames), deterministic: encode.deterministic ? 1 : 0)
                return segue_encoder_open(&config, &error)
            }
        }
        guard let opened else {
            file.discard()
            throw ExportError.encoder(path: path, reason: error.text)
        }
        encoder = opened
    }

    deinit { abort() }

    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        var error = SegueAVError()
        let status: Int32
        if reads == .rgba {
            let stride = Int32(frame.width * 4)
            status = opaque
                ? frame.pixels.withMemoryRebound(to: UInt8.self, capacity: frame.width * frame.height * 4) { segue_encoder_send_rgba(encoder, $0, stride, &error) }
                : frame.withStraightAlpha(scratch: &straight) { segue_encoder_send_rgba(encoder, $0, stride, &error) }
        } else {
            // Frames from the exporter come with their yuv420p copy; others are converted
            // here, once: the same frame again (a still hold) is the same picture sent again.
            let yuv: YUVFrame
            if frame.yuv == nil, repeated, let spare { yuv = spare } else { yuv = try frame.yuv420p(spare: &spare, for: file.target) }
            status = segue_encoder_send(encoder, yuv.frame, &error)
        }
        guard status == 0 else { throw ExportError.encoder(path: file.target, reason: error.text) }
    }

    public func finish() throws {
        var error = SegueAVError()
        let result = segue_encoder_finish(encoder, &error)
        segue_encoder_free(encoder)
        encoder = nil
        guard result == 0 else {
            file.discard()
            throw ExportError.encoder(path: file.target, reason: error.text)
        }
        try file.commit(sidecar: Fingerprint.sidecar(for: file.target, format: format), fingerprint: fingerprint)
    }

    public func abort() {
        guard let encoder else { return }
        segue_encoder_free(encoder)
        self.encoder = nil
        file.discard()
    }
}

/// Calls `body` with a C string of `text`, or with nil.
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// Calls `body` with a C copy of each of `texts` (nil for nil), valid for the call: a C
/// configuration of many strings without a closure nested for each.
func withCStrings<R>(_ texts: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = texts.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}
