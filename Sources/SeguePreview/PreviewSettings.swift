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
        let preset = try Preset.load(self.preset ?? story.preset ?? PresetLibrary.defaultPreset, overrides: overrides,
                                     underlying: story.settings, vars: story.vars, library: library)
        var job = try Job(story: story, preset: preset, output: output, format: format, limits: limits, overwrite: true)
        job.threads = threads
        return (job, story)
    }
}

extension Job {
    /// This job at `fraction` of each side (even sizes, the scene in the same points), as a
    /// quickly encoded H.264 MP4 with a keyframe each second, for the page's player.
    func proxy(_ fraction: Double, output: String) -> Job {
        var job = self
        var preset = job.preset
        func even(_ n: Int) -> Int { max(2, Int((Double(n) * fraction / 2).rounded()) * 2) }
        let width = even(preset.canvas.width)
        preset.canvas.scale *= Double(width) / Double(preset.canvas.width)
        preset.canvas.width = width
        preset.canvas.height = even(preset.canvas.height)
        preset.encode.codec = .h264
        preset.encode.crf = 26
        preset.encode.speed = "ultrafast"
        preset.encode.gop = max(1, Int(preset.fps.frames(in: 1).rounded()))
        job.preset = preset
        job.output = output
        job.format = .mp4
        job.frames = nil
        return job
    }

    /// This job drawing `frames` as PNG files into the folder `output` at `fraction` of each side.
    func pictures(_ frames: [Int], fraction: Double = 1, output: String) -> Job {
        var job = fraction == 1 ? self : proxy(fraction, output: output)
        job.output = output
        job.format = .png
        job.pngLevel = 0
        job.frames = FrameSelection(parsing: frames.map(String.init).joined(separator: ","))
        return job
    }
}
