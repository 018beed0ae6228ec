import Foundation

/// What each frame of a job shows: its pages, the screens its transition shows them on, and
/// each frame's scene (`scene(at:)`), worked out from the frame's place on the timeline and
/// nothing else. A value: no pictures are held, no thread is started, nothing is read.
///
/// Pages hold references to the inputs (`Contents`); what they draw is made by the run's
/// `FrameResources` as its `FrameSchedule` says, and a frame's pictures are looked up when it
/// is drawn (`FramePipeline`).
public final class Storyboard: Sendable {
    public let canvas: Canvas
    public let timeline: Timeline
    /// The preset's transition, which runs the whole video unless there is a plan.
    public let transition: any Transition
    /// Each slide's hold, motion and cut, for a story.
    public let plan: StoryPlan?
    /// The transition of each cut of the plan, made once; nil for a hard cut.
    let cuts: [(any Transition)?]
    /// The motion blur of each cut of the plan, or of the preset's transition without a plan.
    let cutBlurs: [MotionBlur]
    let transitionBlur: MotionBlur
    /// One full-screen page per input.
    public let pages: [Layer]
    /// What each page's picture sits over, made from the picture (`Fit.backdrop`).
    private let backdrops: [PictureEffect]
    /// The pages over their backdrops, as a video without a plan (no motion, no clips) shows
    /// them through a transition that joins two pages.
    private let shownPages: [Layer]
    /// The last clip time each clip slide shows: just before the end of its trimmed part, so
    /// a slide on screen longer than its part holds the part's last frame.
    private let clipEnds: [Int: Double]
    /// The text overlays and stickers of each slide and of the screen, and their pictures' sources.
    let texts: OverlayPictures
    /// The screen's overlays by the second they show in, and by when they end.
    let screenSeconds: OverlaySeconds

    /// A storyboard over pictures of `sizes`, input k being `.still(k)`.
    public convenience init(sizes: [Size], preset: Preset) {
        self.init(sizes: sizes, sources: sizes.indices.map { .still($0) }, preset: preset,
                  plan: nil, timeline: preset.timeline(screens: preset.screenCount(inputs: sizes.count)))
    }

    init(sizes: [Size], sources: [PictureSource], preset: Preset, plan: StoryPlan?, timeline: Timeline,
         clips: [Int: ClipSlide] = [:], texts: OverlayPictures = OverlayPictures(), fills: [(fit: Fit, background: Color)] = []) {
        let canvas = preset.canvas
        let fills = fills.isEmpty ? sizes.map { _ in (fit: preset.fit, background: canvas.background) } : fills
        self.canvas = canvas
        self.texts = texts
        screenSeconds = OverlaySeconds(texts.screen, length: timeline.seconds)
        self.plan = plan
        self.timeline = timeline
        transition = preset.transition.transition
        backdrops = fills.map(\.fit.backdrop)
        pages = zip(zip(sources, sizes), fills).map { input, fill -> Layer in
            var page = Layer(frame: canvas.bounds)
            page.contents = .picture(Picture(input.0, size: input.1))
            page.contentsGravity = fill.fit.gravity
            page.backgroundColor = fill.background
            page.name = "page"
            return page
        }
        // A whole-story transition lays out the pictures itself (cells, faces): no backdrops.
        shownPages = type(of: transition).joinsTwoPages ? zip(pages, backdrops).map { $0.withBackdrop($1) } : pages
        cuts = plan?.cuts.map { $0.settings?.transition } ?? []
        cutBlurs = plan?.cuts.map { $0.settings?.effectiveMotionBlur ?? .off } ?? []
        transitionBlur = preset.transition.effectiveMotionBlur
        clipEnds = clips.compactMapValues { $0.length.map { max(0, $0 - Storyboard.beforeTheEnd) } }
    }

    /// How far before the end of a clip's part its last frame is taken: a frame stamped at
    /// the very end is the first one after the part. More than the microsecond within which
    /// `segue_clip_advance` counts a frame as due, far less than any frame's duration.
    static let beforeTheEnd = 1e-4

    /// The screen frame `index` is on: its hold's, or the one its transition leaves.
    func screen(of index: Int) -> Int { slides(at: index).lowerBound }

    /// Still screen `index` (for a story, slide `index` at the start of its hold).
    public func screen(_ index: Int) -> Layer {
        guard plan != nil else { return transition.screen(index, pages: shownPages, bounds: canvas.bounds) }
        let onScreen = timeline.timeOnScreen(index)
        return page(index, at: index == 0 ? 0 : onScreen.lowerBound + timeline.durations[index - 1])
    }

    /// Slide `index` of a story at `time` seconds: a clip at its time, moved by its motion
    /// (at `motionTime`, for a sample of a blurred frame, else at `time`).
    /// A clip shows the time since its slide first came on screen (the start of its incoming transition).
    func page(_ index: Int, at time: Double, motionTime: Double? = nil) -> Layer {
        var page = pages[index]
        let span = timeline.timeOnScreen(index)
        if isClip(index) { page.contents?.time = min(max(0, time - span.lowerBound), clipEnds[index] ?? .infinity) }
        let length = span.upperBound - span.lowerBound
        let overlays = index < texts.slides.count
            ? texts.slides[index].compactMap { $0.layer(at: time - span.lowerBound, length: length, page: canvas.bounds.size, scale: canvas.scale) } : []
        guard let plan, !plan.motions[index].isStill else {
            guard !overlays.isEmpty else { return page.withBackdrop(backdrops[index]) }
            // Text rides on the page, and is cut at its edges as the page is.
            page.sublayers += overlays
            page.masksToBounds = true
            return page.withBackdrop(backdrops[index])
        }
        let t = length > 0 ? ((motionTime ?? time) - span.lowerBound) / length : 0
        page = page.moving(plan.motions[index], at: t)
        guard !overlays.isEmpty, !page.sublayers.isEmpty else { return page.withBackdrop(backdrops[index]) }
        // On a moving page the text moves with the picture: placed on the picture's layer
        // where the page sits in it.
        let big = 1 + plan.motions[index].amount
        page.sublayers[0].sublayers += overlays.map { layer in
            var layer = layer
            layer.position.x += (big - 1) / 2 * page.bounds.width
            layer.position.y += (big - 1) / 2 * page.bounds.height
            return layer
        }
        return page.withBackdrop(backdrops[index])
    }

    /// Whether slide `index` is a clip (a screen of a whole-story transition is none).
    func isClip(_ index: Int) -> Bool {
        guard pages.indices.contains(index), case let .picture(picture)? = pages[index].contents else { return false }
        return picture.source.clipSlide != nil
    }

    /// The scene of frame `index`: its slides' pages, and the text fixed to the screen above them.
    public func scene(at index: Int) -> Layer {
        let time = timeline.fps.time(ofFrame: index)
        return withScreenText(pagesScene(timeline.moment(at: index), at: time), at: time)
    }

    /// `root` with the text fixed to the screen at `time` above it.
    func withScreenText(_ root: Layer, at time: Double) -> Layer {
        guard !texts.screen.isEmpty else { return root }
        var root = root
        root.sublayers += screenSeconds.candidates(at: time).compactMap {
            texts.screen[$0].layer(at: time, length: timeline.seconds, page: canvas.bounds.size, scale: canvas.scale)
        }
        return root
    }

    /// The scene of `moment` below the screen's text, its pages at `time` (their motion at
    /// `motionTime`, for a sample of a blurred frame).
    func pagesScene(_ moment: Moment, at time: Double, motionTime: Double? = nil) -> Layer {
        guard plan != nil else { return scene(moment) }
        switch moment {
        case let .hold(screen):
            return .root(canvas.bounds, [page(screen, at: time, motionTime: motionTime)])
        case let .transition(step, progress, _):
            // A hard cut takes no time, so none of its frames is between the slides.
            guard let cut = cuts[step] else { return .root(canvas.bounds, [page(step + 1, at: time, motionTime: motionTime)]) }
            return cut.cut(from: page(step, at: time, motionTime: motionTime), to: page(step + 1, at: time, motionTime: motionTime),
                           progress: progress, bounds: canvas.bounds)
        }
    }

    /// What frame `index` shows when it is a still (a hold whose slide does not move), so that
    /// equal stills are composed once; nil for a frame that must be composed.
    public func still(at index: Int) -> Still? {
        let moment = timeline.moment(at: index)
        guard case let .hold(screen) = moment, !isClip(screen) else { return nil }
        if let plan, !plan.motions[screen].isStill { return nil }
        // A frame whose shutter reaches a blurred transition shows some of its motion.
        if mayBlur(at: timeline.fps.time(ofFrame: index)) { return nil }
        // Text that comes, goes or moves makes frames of a hold differ.
        let time = timeline.fps.time(ofFrame: index)
        let onScreen = screenSeconds.candidates(at: time).compactMap { index in
            texts.screen[index].state(at: time, length: timeline.seconds).map { Still.Shown(index: index, state: $0) }
        }
        var overlays: [Overlay.State?] = []
        if plan != nil, screen < texts.slides.count {
            let span = timeline.timeOnScreen(screen)
            overlays = texts.slides[screen].map { $0.state(at: time - span.lowerBound, length: span.upperBound - span.lowerBound) }
        }
        return Still(moment: moment, screen: onScreen, overlays: overlays)
    }

    /// What a still frame shows: equal stills are equal frames.
    public struct Still: Equatable, Sendable {
        /// A screen overlay that shows, and how.
        struct Shown: Equatable, Sendable {
            var index: Int
            var state: Overlay.State
        }

        var moment: Moment
        /// The screen's overlays that show.
        var screen: [Shown]
        /// How each of the slide's overlays shows (nil: it does not).
        var overlays: [Overlay.State?]
    }

    /// The scene of a moment of the timeline, for a video the preset's transition runs.
    public func scene(_ moment: Moment) -> Layer {
        switch moment {
        case let .hold(index):
            return .root(canvas.bounds, [screen(index)])
        case let .transition(step, progress, _):
            return transition.scene(step: step, progress: progress, pages: shownPages, bounds: canvas.bounds)
        }
    }

    /// The slides frame `index` shows: its hold's, or the two its transition joins.
    func slides(at index: Int) -> ClosedRange<Int> {
        switch timeline.moment(at: index) {
        case let .hold(screen): return screen...screen
        case let .transition(step, _, _): return step...(step + 1)
        }
    }
}
