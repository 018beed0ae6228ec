import Foundation

/// What to render and where: the pictures (files, slides or a story), the preset, the output
/// and how it is written. The command line, a batch's rows and the preview each make one;
/// `Job(_:)` resolves it, once, into a job that does not change. A proxy, a chunk or a segment
/// is an edited request, resolved again (`Job.edited`), or delivered otherwise (`Job.delivering`).
public struct JobRequest: Sendable {
    /// What the video shows.
    public enum Pictures: Sendable {
        /// Pictures and clips in order, under the preset's holds, motion and transition.
        case files([String])
        /// Slides with their own holds, motions and cuts, the preset supplying the rest.
        case slides([StorySlide])
        /// A story: its slides, and its text, captions and voices over the whole video.
        case story(Story)
    }

    /// How the output is written. Nothing here changes what a frame shows, so a job
    /// delivered otherwise keeps what it was resolved to.
    public struct Delivery: Sendable {
        public var output: String
        /// Only these frames (not for MP4); nil for all.
        public var frames: FrameSelection?
        /// Only the frames of this chunk of the video (`Chunks`): an MP4 chunk with no sound,
        /// or the chunk's frames as framemd5 or yuv; nil for the whole video.
        public var chunk: Shard?
        /// Only these frames, as an MP4 of their own with no sound, starting with a keyframe:
        /// a preview's segment (`Segments`), joined by copy as chunks are; nil for the whole video.
        public var segment: Range<Int>?
        /// The zlib level PNG frames are deflated at (1 fastest to 9 smallest); nil: FFmpeg's
        /// default. The pixels are the same at every level.
        public var pngLevel: Int?
        /// Compositor threads. Any number gives the same pixels; by default the CPUs the
        /// process was given (`CPUBudget.available()`).
        public var threads: Int
        /// Whether an existing output may be replaced.
        public var overwrite: Bool
        /// Whether an existing output made from the same fingerprint is kept instead of
        /// rendered again (and one made from another, or none, replaced). See `Fingerprint`.
        public var resume = false

        public init(output: String, frames: FrameSelection? = nil, threads: Int = CPUBudget.forThisProcess, overwrite: Bool = false) {
            self.output = output
            self.frames = frames
            self.threads = threads
            self.overwrite = overwrite
        }
    }

    public var pictures: Pictures
    /// The preset, held by reference: the jobs of a batch that share a preset share its
    /// storage (a `Preset` is over a kilobyte; a plan holds a hundred thousand jobs).
    public var preset: Preset {
        _read { yield presetStorage.value }
        set { presetStorage = Shared(newValue) }
    }
    var presetStorage: Shared<Preset>
    /// The output's kind; nil: told by the output's name.
    public var format: OutputFormat?
    public var limits: Limits
    /// Text and stickers fixed to the screen over the whole video, above a story's own
    /// (`--text`).
    public var overlays: [Overlay] = []
    /// Voice tracks on the video's timeline (a manifest's), besides a story's own.
    public var voices: [Voice] = []
    public var delivery: Delivery

    public init(_ pictures: Pictures, preset: Preset, output: String, format: OutputFormat? = nil, frames: FrameSelection? = nil,
                threads: Int = CPUBudget.forThisProcess, limits: Limits = Limits(), overwrite: Bool = false) {
        self.init(pictures, preset: Shared(preset), output: output, format: format, frames: frames, threads: threads, limits: limits,
                  overwrite: overwrite)
    }

    /// A request whose preset other requests share (a batch's).
    init(_ pictures: Pictures, preset: Shared<Preset>, output: String, format: OutputFormat? = nil, frames: FrameSelection? = nil,
         threads: Int = CPUBudget.forThisProcess, limits: Limits = Limits(), overwrite: Bool = false) {
        self.pictures = pictures
        presetStorage = preset
        self.format = format
        self.limits = limits
        delivery = Delivery(output: output, frames: frames, threads: threads, overwrite: overwrite)
    }

    /// A story's request under the preset it names (or `preset`, which replaces it; or the
    /// default), with the story's keys over it and `overrides` over those.
    public init(story: Story, preset name: String? = nil, overrides: PresetPatch = [], library: PresetLibrary? = nil, output: String,
                format: OutputFormat? = nil, frames: FrameSelection? = nil, limits: Limits = Limits(), overwrite: Bool = false) throws {
        let preset = try Preset.load(name ?? story.preset ?? PresetLibrary.defaultPreset, overrides: overrides, underlying: story.settings,
                                     vars: story.vars, library: library)
        self.init(.story(story), preset: preset, output: output, format: format, frames: frames, limits: limits, overwrite: overwrite)
    }

    /// The slides the pictures make: a file's, one slide of the preset's.
    var slides: [StorySlide] {
        switch pictures {
        case let .files(paths): paths.map { StorySlide(image: $0) }
        case let .slides(slides): slides
        case let .story(story): story.slides
        }
    }
}
