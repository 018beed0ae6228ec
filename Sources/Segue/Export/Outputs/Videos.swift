import Foundation

// The outputs FFmpeg's video encoders write, through `VideoSink`: MP4, WebM, MOV and
// animated WebP. Each is its encoding and what it keeps; the sink is the same.

extension OutputFormat {
    /// An H.264 (or HEVC) video and AAC sound in an MP4 file.
    public static let mp4 = OutputFormat(Descriptor(
        "mp4", "H.264 or HEVC (encode.codec) and AAC in MP4", extensions: ["mp4"],
        encode: { VideoEncoding(container: "mp4", codec: $0.encode.codec.encoderName, pixelFormat: "yuv420p", audioCodec: "aac", quality: $0.encode.crf) },
        hasSound: true, takesFrameSelection: false, takesChunks: true, evenSize: "MP4 video (yuv420p)", isUpload: true,
        sidecar: .none, sinks: onePass(videoSink)))

    /// VP9 video and Opus sound in WebM, with alpha when the background is transparent.
    public static let webm = OutputFormat(Descriptor(
        "webm", "VP9 and Opus in WebM (with alpha when the background is transparent)", extensions: ["webm"],
        encode: { VideoEncoding(container: "webm", codec: "libvpx-vp9", pixelFormat: $0.canvas.isTransparent ? "yuva420p" : "yuv420p", audioCodec: "libopus", quality: $0.encode.crf) },
        hasSound: true, keepsAlpha: true, alphaName: ".webm (VP9 with alpha)", takesFrameSelection: false,
        evenSize: "WEBM video (yuv420p)", sidecar: .none, sinks: onePass(videoSink)))

    /// ProRes in a QuickTime MOV: 4444 with alpha when the background is transparent, else 422 HQ.
    public static let mov = OutputFormat(Descriptor(
        "mov", "ProRes (4444 with alpha, else 422 HQ) and AAC in MOV", extensions: ["mov"],
        encode: { VideoEncoding(container: "mov", codec: "prores_ks", pixelFormat: $0.canvas.isTransparent ? "yuva444p10le" : "yuv422p10le", audioCodec: "aac", quality: $0.encode.crf) },
        hasSound: true, keepsAlpha: true, alphaName: ".mov (ProRes 4444)", takesFrameSelection: false,
        evenSize: "MOV video (4:2:2)", isUpload: true, sidecar: .none, sinks: onePass(videoSink)))

    /// An animated WebP (libwebp), looping for ever by default.
    public static let webp = OutputFormat(Descriptor(
        "webp", "an animated WebP", extensions: ["webp"],
        encode: { VideoEncoding(container: "webp", codec: "libwebp_anim", pixelFormat: $0.canvas.isTransparent ? "yuva420p" : "yuv420p", audioCodec: "aac", quality: $0.webp.quality) },
        keepsAlpha: true, alphaName: ".webp", takesFrameSelection: false, evenSize: "WEBP video (yuv420p)",
        fingerprintFields: { p in
            ["webp": .object(["quality": .number(Double(p.webp.quality)), "lossless": .string(p.webp.lossless ? "true" : "false"),
                              "loop": .number(Double(p.webp.loop))])]
        }, sinks: onePass(videoSink)))

    /// A video's sink: its sound (not for a chunk: the join makes the soundtrack once, for the
    /// whole video) and its fingerprint.
    private static let videoSink: @Sendable (SinkRequest) throws -> FrameSink = { request in
        let job = request.job
        let frames = job.timeline.frameCount
        let chunk = job.chunk.map { $0.chunkTag(frames: frames) } ?? job.segment.map { "segment \(Shard.describe($0)) \(frames)" }
        // A segment, written alone, is encoded without B-frames: its first timestamps would
        // lack the B-frame delay the segment before it ends with, and the two would not join.
        var preset = job.preset
        if job.segment != nil { preset.encode.bframes = 0 }
        return try VideoSink(path: job.output, format: job.format, preset: preset,
                             soundtrack: chunk == nil ? job.soundtrack : Soundtrack(music: Preset.AudioSettings()),
                             frames: frames, fingerprint: request.fingerprint(), chunk: chunk, replace: request.replace)
    }
}
