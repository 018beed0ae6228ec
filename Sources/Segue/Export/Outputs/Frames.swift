import Foundation

// The outputs of frames rather than a video: PNG frames in a folder, framemd5 checksums, raw
// yuv420p, a contact sheet, and nothing at all (to time rendering).

extension OutputFormat {
    /// One `frame-NNNNN.png` per frame in a folder.
    public static let png = OutputFormat(Descriptor(
        "png", "a folder of frame-NNNNN.png files, named by frame index", otherEncoders: ["png"], keepsAlpha: true, alphaName: "PNG frames",
        isFolder: true, sidecar: .inFolder, sinks: onePass { request in
        try PNGSink(folder: request.job.output, fingerprint: request.fingerprint(), replace: request.replace, level: request.job.pngLevel)
    }))

    /// FFmpeg's framemd5 checksums of the RGBA frames, to a file or `-` (standard output).
    public static let framemd5 = OutputFormat(Descriptor(
        "framemd5", "FFmpeg's framemd5 checksums of the RGBA frames", extensions: ["framemd5", "md5"], keepsAlpha: true,
        toStandardOutput: true, takesChunks: true, sinks: onePass { request in
        let job = request.job
        return try FrameMD5Sink(path: job.output, width: job.preset.canvas.width, height: job.preset.canvas.height, fps: job.preset.fps,
                                fingerprint: request.fingerprint(), replace: request.replace)
    }))

    /// Raw yuv420p frames, exactly as the MP4 encoder receives them, to a file or `-`
    /// (standard output): for another encoder to read.
    public static let yuv = OutputFormat(Descriptor(
        "yuv", "raw yuv420p frames (what the MP4's encoder is given, for another encoder)", extensions: ["yuv"],
        toStandardOutput: true, takesChunks: true, evenSize: "yuv420p output", sinks: onePass { request in
        let job = request.job
        return try YUVSink(path: job.output, width: job.preset.canvas.width, height: job.preset.canvas.height,
                           fingerprint: request.fingerprint(), replace: request.replace)
    }))

    /// One PNG contact sheet of frames sampled across the video.
    public static let sheet = OutputFormat(Descriptor(
        "sheet", "a PNG contact sheet of frames sampled across the video", extensions: ["png"], otherEncoders: ["png"], keepsAlpha: true,
        samples: 12, sinks: onePass { request in
        let job = request.job
        return try SheetSink(path: job.output, frameWidth: job.preset.canvas.width, frameHeight: job.preset.canvas.height,
                             fingerprint: request.fingerprint(), replace: request.replace)
    }))

    /// Nothing: frames are composed and dropped, to measure rendering alone.
    public static let null = OutputFormat(Descriptor(
        "null", "nothing: drawn as an export draws, band by band, and dropped (to time rendering)", keepsAlpha: true,
        toStandardOutput: true, takesChunks: true, sidecar: .none, sinks: onePass { _ in NullSink() }))
}
