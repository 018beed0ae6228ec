import Foundation
import Segue

/// The story as the page shows it (`GET /api/story`): its size and timing, each slide, cut,
/// overlay and caption cue on the timeline with the file and line it comes from, and the
/// sound's lanes.
struct StoryDescription: Codable, Sendable {
    struct Slide: Codable, Sendable {
        var index: Int
        /// When it is first and last seen, and its hold.
        var start, end, holdStart, holdEnd: Double
        var name: String
        var origin: String
        /// Changes when the slide's pictures do (the thumbnail's address).
        var key: String
        var clip: Bool
    }

    struct Cut: Codable, Sendable {
        var index: Int
        var kind: String
        var start, duration: Double
        var origin: String
        /// Its motion blur's shutter angle, if it is blurred (its own, or a camera move's).
        var blur: Double?
        /// Under `timing: beats`, the grid point it is on (its time and what it is) and how
        /// far it moved to reach it.
        var beat: Double?
        var beatLabel: String?
        var moved: Double?
    }

    struct Overlay: Codable, Sendable {
        /// "text", "sticker", "leak", "caption", or "slide text".
        var kind: String
        var text: String
        var start, end: Double
        var origin: String
        var slide: Int?
    }

    struct Lane: Codable, Sendable {
        /// "music", "clip" or "voice".
        var kind: String
        var name: String
        var start, end: Double
        var level: [Float] = []
        /// The music's lane: the grid points cuts may move to (`timing: beats`).
        var beats: [Double] = []
    }

    var version: Int
    var story: String
    var fps: Double
    var rate: String
    var frameCount: Int
    var duration: Double
    var width, height: Int
    var proxyWidth, proxyHeight: Int
    /// Top, right, bottom, left, as fractions of the canvas.
    var safeArea: [Double]
    var slides: [Slide] = []
    var cuts: [Cut] = []
    var overlays: [Overlay] = []
    var lanes: [Lane] = []
    /// Where the music is lowered under other sound.
    var ducks: [[Double]] = []
    var rows: [String]?
    var row: Int

    init(job: Job, proxy: Job, story: Story, segments: [Segments.Segment], version: Int, storyPath: String,
         rows: TemplateData?, row: Int) {
        let timeline = job.timeline, fps = job.preset.fps
        self.version = version
        self.story = storyPath
        self.fps = fps.frames(in: 1)
        rate = fps.description
        frameCount = timeline.frameCount
        duration = fps.time(ofFrame: timeline.frameCount)
        width = job.preset.canvas.width
        height = job.preset.canvas.height
        proxyWidth = proxy.preset.canvas.width
        proxyHeight = proxy.preset.canvas.height
        let safe = job.preset.canvas.safeArea
        safeArea = [safe.top, safe.right, safe.bottom, safe.left]
        self.row = row
        self.rows = rows.map { data in
            data.rows.enumerated().map { n, row in
                let first = data.columns.first.flatMap { row.values[$0] } ?? ""
                return "row \(n + 1) (line \(row.line))" + (first.isEmpty ? "" : ": " + first)
            }
        }
        var holdStart = 0.0
        for (index, slide) in story.slides.enumerated() where index < timeline.screenCount {
            let shown = timeline.timeOnScreen(index)
            let holdEnd = holdStart + timeline.holds[index]
            slides.append(Slide(index: index, start: shown.lowerBound, end: shown.upperBound, holdStart: holdStart, holdEnd: holdEnd,
                                name: (slide.image as NSString).lastPathComponent, origin: slide.origin.description,
                                key: index < segments.count ? String(segments[index].key.suffix(16)) : "",
                                clip: job.clips[index] != nil))
            if index < timeline.screenCount - 1 {
                let settings = job.plan == nil ? job.preset.transition : job.plan?.cuts[index].settings
                let blur = settings?.effectiveMotionBlur
                var cut = Cut(index: index, kind: settings?.kind ?? "cut", start: timeline.transitionStart(index), duration: timeline.durations[index],
                              origin: (slide.transition?.origin ?? slide.origin).description, blur: blur?.isOff == false ? blur?.shutter : nil)
                if let beats = job.beats, index < beats.placed.count, let point = beats.placed[index].point, point < beats.points.count {
                    (cut.beat, cut.beatLabel, cut.moved) = (beats.points[point].time, beats.points[point].label, beats.placed[index].moved)
                }
                cuts.append(cut)
                holdStart = timeline.transitionStart(index) + timeline.durations[index]
            }
            let nodes = Self.items(slide.overlays)
            for (n, overlay) in (index < job.overlays.count ? job.overlays[index] : []).enumerated() {
                let end = overlay.span.endTime.map { shown.lowerBound + $0 } ?? shown.upperBound
                overlays.append(Overlay(kind: Self.lane(overlay, onSlide: true), text: Self.label(overlay),
                                        start: shown.lowerBound + overlay.span.start, end: min(end, shown.upperBound),
                                        origin: (n < nodes.count ? nodes[n].origin : slide.origin).description, slide: index))
            }
        }
        // Screen overlays: the story's own first, then the captions' cues.
        let written = Self.items(story.overlays)
        for (n, overlay) in job.screenOverlays.enumerated() {
            let caption = n >= written.count && story.captions != nil
            // A caption names its cue's line in its file; the story's line names the file.
            let origin = n < written.count ? written[n].origin.description
                : story.captions.map { captions in
                    overlay.line.map { "\(Self.captionFile(captions)), line \($0)" } ?? "\(captions.origin.description) (\(Self.captionFile(captions)))"
                } ?? "--text"
            overlays.append(Overlay(kind: caption ? "caption" : Self.lane(overlay, onSlide: false), text: Self.label(overlay),
                                    start: overlay.span.start, end: overlay.span.endTime ?? duration, origin: origin, slide: nil))
        }
        let soundtrack = job.soundtrack
        if job.format.hasSound, let file = soundtrack.music.file {
            lanes.append(Lane(kind: "music", name: (file as NSString).lastPathComponent, start: 0, end: duration,
                              beats: job.beats?.placed.isEmpty == false ? job.beats!.points.map(\.time) : []))
        }
        for sound in soundtrack.sounds {
            let clip = job.clips.values.contains { $0.path == sound.path }
            lanes.append(Lane(kind: clip ? "clip" : "voice", name: (sound.path as NSString).lastPathComponent,
                              start: sound.at, end: min(duration, sound.at + sound.length)))
        }
        ducks = soundtrack.ducks.map { [$0.lowerBound, min(duration, $0.upperBound)] }
    }

    static func items(_ node: ConfigNode?) -> [ConfigNode] {
        guard let node, case let .sequence(items) = node.value else { return [] }
        return items
    }

    static func captionFile(_ node: ConfigNode) -> String {
        let file: ConfigNode? = node["file"] ?? node
        if let file, case let .scalar(text, _) = file.value { return (text as NSString).lastPathComponent }
        return "captions"
    }

    static func label(_ overlay: Segue.Overlay) -> String { overlay.summary }

    /// The lane an overlay is drawn in: its kind's (a slide's text apart from the screen's).
    static func lane(_ overlay: Segue.Overlay, onSlide: Bool) -> String {
        let kind = overlay.content.kind
        return onSlide && kind == "text" ? "slide text" : kind
    }
}

/// The page's export (its Render button): running, how far, and what it wrote or why it failed.
struct ExportStatus: Codable, Sendable {
    /// Which export of the session this is (1 for the first; 0 before any), so that a page
    /// reports only those started since it opened.
    var number = 0
    var running = false
    var done = 0
    var total = 0
    var output: String?
    var error: String?
    var seconds: Double?
}
