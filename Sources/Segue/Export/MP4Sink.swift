import CSegueAV
import Foundation

/// H.264 or HEVC in MP4, through FFmpeg.
public final class MP4Sink: FrameSink {
    private let file: StagedFile
    private var encoder: OpaquePointer?
    /// Where a frame without a yuv420p copy is converted.
    private var spare: YUVFrame?

    /// `fingerprint`, if given, is kept in the file's metadata (see `Fingerprint`); an
    /// existing file at `path` is replaced only with `replace`.
    /// `soundtrack`, when it has a track, adds an AAC track exactly as long as the `frames`
    /// frames of the video.
    public init(path: String, width: Int, height: Int, fps: Int, encode: Preset.EncodeSettings,
                soundtrack: Soundtrack = Soundtrack(music: Preset.AudioSettings()), frames: Int = 0,
                fingerprint: String? = nil, replace: Bool = false) throws {
        file = try StagedFile(target: path, replace: replace)
        var error = SegueAVError()
        let opened = file.temporary.withCString { tmp in
            "mp4".withCString { format in
                encode.codec.encoderName.withCString { codec in
                    encode.speed.withCString { speed in
                        withOptionalCString(fingerprint) { tag in
                            soundtrack.withConfig { track in
                                var config = SegueEncoderConfig(path: tmp, format_name: format, codec_name: codec,
                                                                width: Int32(width), height: Int32(height), fps: Int32(fps),
                                                                crf: Int32(encode.crf), speed: speed, threads: Int32(encode.threads),
                                                                fingerprint: tag, audio: soundtrack.hasTrack ? track : nil,
                                                                frames: Int64(frames), deterministic: encode.deterministic ? 1 : 0)
                                return segue_encoder_open(&config, &error)
                            }
                        }
                    }
                }
            }
        }
        guard let opened else {
            file.discard()
            throw ExportError.encoder(path: path, reason: error.text)
        }
        encoder = opened
    }

    deinit { abort() }

    public var reads: FrameForm { .yuv420p }

    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        // Frames from the exporter come with their yuv420p copy; others are converted here,
        // once: the same frame again (a still hold) is the same picture sent again.
        let yuv: YUVFrame
        if frame.yuv == nil, repeated, let spare { yuv = spare } else { yuv = try frame.yuv420p(spare: &spare, for: file.target) }
        var error = SegueAVError()
        guard segue_encoder_send(encoder, yuv.frame, &error) == 0 else { throw ExportError.encoder(path: file.target, reason: error.text) }
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
        try file.commit()
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
