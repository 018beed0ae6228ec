import Foundation

extension OutputFormat {
    /// An animated GIF (FFmpeg's two-pass palette), looping for ever by default, at 15 fps
    /// unless the story, the job or the command line gives a rate. With a palette of the
    /// whole video, the frames are composed twice (the same pixels each time), the first time
    /// for the palette; each pass's sink is made when the pass starts.
    public static let gif = OutputFormat(Descriptor(
        "gif", "an animated GIF (FFmpeg's palette, 15 fps unless a rate is given)", extensions: ["gif"], otherEncoders: ["gif"],
        defaultRate: FrameRate(Preset.GIFSettings.defaultFPS), takesFrameSelection: false,
        fingerprintFields: { p in
            ["gif": .object(["palette": .string(p.gif.palette.rawValue), "dither": .string(p.gif.dither), "loop": .number(Double(p.gif.loop))])]
        },
        sinks: { request in
            let job = request.job, canvas = job.preset.canvas
            func final(_ palette: GIFPaletteSink?) throws -> FrameSink {
                try GIFSink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps, settings: job.preset.gif,
                            palette: palette, fingerprint: request.fingerprint(), replace: request.replace)
            }
            guard job.preset.gif.palette != .frame else { return [{ try final(nil) }] }
            let palette = try GIFPaletteSink(path: job.output, width: canvas.width, height: canvas.height, fps: job.preset.fps, settings: job.preset.gif)
            return [{ palette }, { try final(palette) }]
        }))
}
