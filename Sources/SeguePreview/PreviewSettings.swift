import Foundation
import Segue

/// What `segue preview` was asked for: the story and the options an export of it takes, the
/// template's rows, the proxy's size, and where the server listens.
public struct PreviewSettings: Sendable {
    /// The story file (a template with `data`).
    public var story: String
    /// `--preset`, over the story's own.
    public var preset: String?
    /// `--set` and the options that set preset keys (`--target`, `--size`, ...).
    public var overrides: PresetPatch
    public var library: PresetLibrary
    /// `--var` values.
    public var vars: [String: String]
    /// A CSV or JSON Lines file of rows for the story's `{{variables}}`; the page picks one.
    public var data: String?
    public var limits: Limits
    public var threads: Int
    /// The proxy's size as a fraction of each side of the canvas (0.5: a quarter of the pixels).
    public var proxyScale: Double
    /// Where the page's Render button exports the story.
    public var output: String
    public var host: String
    /// 0: any free port.
    public var port: Int
    /// How often the story's files are looked at, in seconds.
    public var poll: Double = 0.1

    public init(story: String, preset: String?, overrides: PresetPatch, library: PresetLibrary, vars: [String: String],
                data: String?, limits: Limits, threads: Int, proxyScale: Double, output: String, host: String, port: Int) {
        self.story = story
        self.preset = preset
        self.overrides = overrides
        self.library = library
        self.vars = vars
        self.data = data
        self.limits = limits
        self.threads = threads
        self.proxyScale = proxyScale
        self.output = output
        self.host = host
        self.port = port
    }

    /// The job the story makes with `vars` over `self.vars`, and the story as read.
    func load(vars row: [String: String], output: String, format: OutputFormat) throws -> (job: Job, story: Story) {
        // A row's columns that the story does not use (an id for the output's name) are left out,
        // as a batch leaves them.
        let template = try StoryTemplate.load(self.story, library: library, preset: preset)
        let values = vars.merging(row.filter { template.used[$0.key] != nil }) { _, mine in mine }
        let story = try template.story(values)
        var request = try JobRequest(story: story, preset: preset, overrides: overrides, library: library, output: output, format: format,
                                     limits: limits, overwrite: true)
        request.delivery.threads = threads
        return (try Job(request), story)
    }
}

extension Job {
    /// This job at `fraction` of each side (`scale`), as a quickly encoded H.264 MP4 with a
    /// keyframe each second, for the page's player.
    func proxy(_ fraction: Double, output: String) throws -> Job {
        try edited { request in
            Job.scale(&request, by: fraction)
            request.preset.encode.codec = .h264
            request.preset.encode.crf = 26
            request.preset.encode.speed = "ultrafast"
            request.preset.encode.gop = max(1, Int(request.preset.fps.frames(in: 1).rounded()))
            request.format = .mp4
            request.delivery.output = output
            request.delivery.frames = nil
        }
    }

    /// This job drawing `frames` as PNG files into the folder `output` at `fraction` of each side.
    /// At full size the job is not resolved again (a frame asked for is a delivery of it).
    func pictures(_ frames: [Int], fraction: Double = 1, output: String) throws -> Job {
        let scaled = fraction == 1 ? self : try edited { Job.scale(&$0, by: fraction) }
        return try scaled.delivering(as: .png) { delivery in
            delivery.output = output
            delivery.pngLevel = 0
            delivery.frames = FrameSelection(parsing: frames.map(String.init).joined(separator: ","))
        }
    }

    /// `request`'s canvas at `fraction` of each side (even sizes, the scene in the same points).
    private static func scale(_ request: inout JobRequest, by fraction: Double) {
        func even(_ n: Int) -> Int { max(2, Int((Double(n) * fraction / 2).rounded()) * 2) }
        let width = even(request.preset.canvas.width)
        request.preset.canvas.scale *= Double(width) / Double(request.preset.canvas.width)
        request.preset.canvas.width = width
        request.preset.canvas.height = even(request.preset.canvas.height)
    }
}
