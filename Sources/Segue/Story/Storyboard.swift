import Dispatch
import Foundation

/// A job's pages, the screens its transition shows them on, and what any frame shows: its
/// scene, and the plan of its contents (`frame(at:)`).
///
/// Pages hold references to the inputs (`Contents`), resolved when a frame is composed: a
/// still through `pictures`, each input decoded once and each part resampled once per size
/// it is drawn at; a clip's frame through its slide's `ClipFeed`, asked for as the frame is
/// planned. Screens' pictures are made on a thread of their own, in order, from the moment
/// the storyboard is made: the first screen's while the export opens its encoder, the
/// others' as the export comes near them, so a picture is waited for only if it is needed
/// before it is ready. Once every screen is prepared, the full-size pixels are let go.
///
/// Frames are planned in order (`willPlan`, then `frame(at:)`) and reported shown in order
/// (`didShow`): planning moves the preparation ahead and opens the clips a second before
/// they are drawn; showing lets go of what only the frames before needed.
public final class Storyboard: Sendable {
    public let canvas: Canvas
    public let timeline: Timeline
    /// The preset's transition, which runs the whole video unless there is a plan.
    public let transition: any Transition
    /// Each slide's hold, motion and cut, for a story.
    public let plan: StoryPlan?
    /// The transition of each cut of the plan, made once; nil for a hard cut.
    private let cuts: [(any Transition)?]
    public let pictures: PictureCache
    /// One full-screen page per input.
    public let pages: [Layer]
    /// What each page's picture sits over, made from the picture (`Fit.backdrop`).
    private let backdrops: [PictureEffect]
    /// The pages over their backdrops, as a video without a plan (no motion, no clips) shows
    /// them through a transition that joins two pages.
    private let shownPages: [Layer]
    private let stop = Cancellation()
    /// The clip slides' feeds, by slide, and the first and last frame each is drawn on.
    private let feeds: [Int: (feed: ClipFeed, frames: ClosedRange<Int>)]
    /// The feeds by the first frame each is drawn on, and by the last, and how many of each
    /// list have been opened and closed (`willPlan`, `didShow`): a frame looks at the next
    /// feeds to open or close, not at every clip of the story.
    private let feedsByFirst: [(feed: ClipFeed, frames: ClosedRange<Int>)]
    private let feedsByLast: [(feed: ClipFeed, frames: ClosedRange<Int>)]
    private let feedsPassed = Locked((opened: 0, closed: 0))
    /// The last clip time each clip slide shows: just before the end of its trimmed part, so
    /// a slide on screen longer than its part holds the part's last frame.
    private let clipEnds: [Int: Double]
    /// Which screens to have ready: the screen of the frame planned last and how far ahead
    /// to prepare (two screens), moved on by `willPlan`; the worker waits on `wake` for more.
    private let schedule = Locked((current: -1, wanted: 0))
    private let wake = DispatchSemaphore(value: 0)
    /// The screen of the frame shown last, moved on by `didShow`.
    private let shown = Locked(-1)
    /// The still sources whose last screen each screen is (set once the screens can be built,
    /// in init): moving past a screen lets go of its list, so a story of many slides costs
    /// each move its own sources, not every screen's.
    private let lastDrawnOn = Locked<[[PictureSource]]>([])
    /// The text overlays of each slide and of the screen, and their pictures' sources.
    private let texts: OverlayPictures
    /// The screen's overlays by the second they show in, and how many of those that end (by
    /// when) have had their pictures let go.
    private let screenSeconds: OverlaySeconds
    private let endedLetGo = Locked(0)
    /// Each overlay's first picture, by the time it first shows (seconds of the video), drawn
    /// a second ahead beside the export (`willPlan`) rather than when a frame waits for it;
    /// and how many of them are asked for so far.
    private let textsAhead: [(time: Double, keys: [PictureKey])]
    private let textsAsked = Locked(0)
    private let textQueue = DispatchQueue(label: "segue.text-ahead", qos: .utility)

    /// A storyboard over images already in memory, input k being `images[k]`.
    public convenience init(images: [Image], preset: Preset, threads: Int = 2) {
        self.init(sizes: images.map(\.size), sources: images.indices.map { .still($0) }, pictures: PictureCache(images), preset: preset,
                  plan: nil, timeline: preset.timeline(screens: preset.screenCount(inputs: images.count)), threads: threads)
    }

    init(sizes: [Size], sources: [PictureSource], pictures: PictureCache, preset: Preset, plan: StoryPlan?, timeline: Timeline, threads: Int,
                 clips: [Int: ClipSlide] = [:], frames: [Int] = [], limits: Limits = Limits(), yielding: Bool = false,
                 texts: OverlayPictures = OverlayPictures(), fills: [(fit: Fit, background: Color)] = []) {
        let canvas = preset.canvas
        let fills = fills.isEmpty ? sizes.map { _ in (fit: preset.fit, background: canvas.background) } : fills
        self.canvas = canvas
        self.texts = texts
        screenSeconds = OverlaySeconds(texts.screen, length: timeline.seconds)
        self.pictures = pictures
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
        // Each clip's feed, and the frames its slide is on screen for: read from the
        // timeline, no scene built.
        var drawn: [Int: ClosedRange<Int>] = [:]
        if !clips.isEmpty {
            for index in frames {
                let visible: [Int]
                switch timeline.moment(at: index) {
                case let .hold(screen): visible = [screen]
                case let .transition(step, _, _): visible = [step, step + 1]
                }
                for slide in visible where clips[slide] != nil {
                    drawn[slide] = (drawn[slide]?.lowerBound ?? index)...index
                }
            }
        }
        clipEnds = clips.compactMapValues { $0.length.map { max(0, $0 - Storyboard.beforeTheEnd) } }
        var ahead: [(time: Double, keys: [PictureKey])] = []
        func first(_ placed: OverlayPictures.Placed, from origin: Double, length: Double) {
            let start = max(0, placed.overlay.span.start)
            guard let layer = placed.layer(at: start, length: length, page: canvas.bounds.size, scale: canvas.scale) else { return }
            ahead.append((origin + start, PictureCache.keys(in: layer, scale: canvas.scale)))
        }
        for placed in texts.screen { first(placed, from: 0, length: timeline.seconds) }
        if plan != nil {
            for (slide, list) in texts.slides.enumerated() where slide < timeline.screenCount {
                let span = timeline.timeOnScreen(slide)
                for placed in list { first(placed, from: span.lowerBound, length: span.upperBound - span.lowerBound) }
            }
        }
        textsAhead = ahead.sorted { $0.time < $1.time }
        feeds = Dictionary(uniqueKeysWithValues: drawn.map { slide, frames in
            (slide, (ClipFeed(clip: clips[slide]!, limits: limits, threads: threads), frames))
        })
        feedsByFirst = feeds.values.sorted { $0.frames.lowerBound < $1.frames.lowerBound }
        feedsByLast = feeds.values.sorted { $0.frames.upperBound < $1.frames.upperBound }
        let count = timeline.screenCount
        // Every still picture the screens draw, by source: a source's full-size pixels go once
        // all are made. Each screen's tree is built here once; the worker below makes its keys.
        let screenKeys = (0..<count).map { PictureCache.keys(in: screen($0), scale: canvas.scale).filter { $0.source.clipSlide == nil } }
        // A slide's text goes with its screen; the screen's own text when it has ended (`didShow`).
        var sources = screenKeys.map { Set($0.map(\.source)) }
        if plan != nil {
            for (slide, placed) in texts.slides.enumerated() where slide < sources.count {
                for overlay in placed { sources[slide].formUnion(overlay.sources) }
            }
        }
        var lastScreen: [PictureSource: Int] = [:]
        for (screen, drawn) in sources.enumerated() { for source in drawn { lastScreen[source] = screen } }
        var ending = [[PictureSource]](repeating: [], count: sources.count)
        for (source, screen) in lastScreen { ending[screen].append(source) }
        lastDrawnOn.withLock { $0 = ending }
        let keysBySource = Dictionary(grouping: screenKeys.joined(), by: \.source).mapValues(Set.init)
        pictures.plan(reading: keysBySource) { if case let .still(input) = $0 { sizes[input] } else { nil } }
        willPlan(frames.first ?? 0)
        let first = schedule.withLock { $0.current }
        // The first screen's pictures are made on all the threads while the export opens its
        // sink (its encoder); the screens after it one by one beside the export, as it comes
        // near them. The thread holds the storyboard only while it prepares, so that a
        // storyboard let go (an export done or stopped) ends it. A picture that fails is made
        // again by the frame that draws it, which reports the error.
        let schedule = self.schedule, wake = self.wake, stop = self.stop
        Threads.start(.preparingPictures, yielding: yielding) { [weak self] in
            for index in first..<max(first + 1, count) {
                while schedule.withLock({ $0.wanted }) < index && !stop.isCancelled { wake.wait() }
                guard !stop.isCancelled, let board = self else { return }
                if index < screenKeys.count { try? board.pictures.prepare(screenKeys[index], threads: index == first ? threads : 1) }
                board.pictures.releaseSources(whoseKeysAreReady: keysBySource)
            }
        }
    }

    deinit {
        stop.cancel()
        wake.signal()
        for entry in feeds.values { entry.feed.stop() }
    }

    /// How far before the end of a clip's part its last frame is taken: a frame stamped at
    /// the very end is the first one after the part. More than the microsecond within which
    /// `segue_clip_advance` counts a frame as due, far less than any frame's duration.
    static let beforeTheEnd = 1e-4

    /// Screens prepared ahead of the one being composed. Two: a decode and a resample take a
    /// few tenths of a second, a short hold and its transition about as long to encode.
    static let screensAhead = 2

    /// Readies what frame `index`, about to be planned, draws: a clip is opened a second
    /// before its slide is first drawn, and the screens (still pictures) ahead of it are
    /// prepared as it comes near them.
    public func willPlan(_ index: Int) {
        if !feedsByFirst.isEmpty {
            let due = feedsPassed.withLock { passed -> Range<Int> in
                let from = passed.opened
                while passed.opened < feedsByFirst.count, feedsByFirst[passed.opened].frames.lowerBound <= index + timeline.fps.perSecond { passed.opened += 1 }
                return from..<passed.opened
            }
            for entry in feedsByFirst[due] where index <= entry.frames.upperBound { entry.feed.open() }
        }
        if !textsAhead.isEmpty {
            let soon = timeline.fps.time(ofFrame: index) + 1
            let (from, to) = textsAsked.withLock { asked -> (Int, Int) in
                let from = asked
                while asked < textsAhead.count && textsAhead[asked].time < soon { asked += 1 }
                return (from, asked)
            }
            if to > from {
                let keys = textsAhead[from..<to].flatMap(\.keys), pictures = pictures
                textQueue.async { try? pictures.prepare(keys, threads: 1) }
            }
        }
        let screen = screen(of: index)
        let moved = schedule.withLock { state -> Bool in
            guard screen > state.current else { return false }
            state.current = screen
            state.wanted = max(state.wanted, screen + Storyboard.screensAhead)
            return true
        }
        if moved { wake.signal() }
    }

    /// Lets go of what only the frames before `index`, now shown, drew: a clip past its last
    /// frame is closed, and the pictures only screens before it draw are let go. The timeline
    /// shows screens in order, so those are not drawn again (if they are, for frames asked out
    /// of order, they are made again).
    public func didShow(_ index: Int) {
        if !feedsByLast.isEmpty {
            let done = feedsPassed.withLock { passed -> Range<Int> in
                let from = passed.closed
                while passed.closed < feedsByLast.count, index >= feedsByLast[passed.closed].frames.upperBound { passed.closed += 1 }
                return from..<passed.closed
            }
            for entry in feedsByLast[done] { entry.feed.close() }
        }
        // Once a second, the pictures of the screen's text that has ended (captions) are let go.
        if index % timeline.fps.perSecond == 0, !screenSeconds.ends.isEmpty {
            let ended = screenSeconds.endedCount(before: timeline.fps.time(ofFrame: index))
            let newly = endedLetGo.withLock { done -> Range<Int> in
                defer { done = max(done, ended) }
                return done..<max(done, ended)
            }
            if !newly.isEmpty {
                pictures.forget(sources: screenSeconds.ends[newly].reduce(into: Set<PictureSource>()) { $0.formUnion(texts.screen[$1.index].sources) })
            }
        }
        let screen = screen(of: index)
        let previous = shown.withLock { shown -> Int? in
            guard screen > shown else { return nil }
            defer { shown = screen }
            return shown
        }
        guard let previous else { return }
        // The sources last drawn on the screens passed since.
        let passed = lastDrawnOn.withLock { ending -> Set<PictureSource> in
            guard screen > 0, screen < ending.count else { return [] }
            return ending[max(0, previous)..<screen].reduce(into: Set<PictureSource>()) { $0.formUnion($1) }
        }
        if !passed.isEmpty { pictures.forget(sources: passed) }
    }

    /// The screen frame `index` is on: its hold's, or the one its transition leaves.
    private func screen(of index: Int) -> Int {
        switch timeline.moment(at: index) {
        case let .hold(screen): return screen
        case let .transition(step, _, _): return step
        }
    }

    /// Still screen `index` (for a story, slide `index` at the start of its hold).
    public func screen(_ index: Int) -> Layer {
        guard plan != nil else { return transition.screen(index, pages: shownPages, bounds: canvas.bounds) }
        let onScreen = timeline.timeOnScreen(index)
        return page(index, at: index == 0 ? 0 : onScreen.lowerBound + timeline.durations[index - 1])
    }

    /// Slide `index` of a story at `time` seconds: a clip at its time, moved by its motion.
    /// A clip shows the time since its slide first came on screen (the start of its incoming transition).
    func page(_ index: Int, at time: Double) -> Layer {
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
        let t = length > 0 ? (time - span.lowerBound) / length : 0
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

    /// Makes the still pictures (not a clip's) that frame `index` draws.
    func prepareStills(of index: Int, threads: Int) throws {
        try pictures.prepare(scene(at: index).contentsPlans(scale: canvas.scale).map(\.key).filter { $0.source.clipSlide == nil }, threads: threads)
    }

    /// Whether slide `index` is a clip (a screen of a whole-story transition is none).
    private func isClip(_ index: Int) -> Bool {
        guard pages.indices.contains(index), case let .picture(picture)? = pages[index].contents else { return false }
        return picture.source.clipSlide != nil
    }

    /// The scene of frame `index`: its slides' pages, and the text fixed to the screen above them.
    public func scene(at index: Int) -> Layer {
        var root = pagesScene(at: index)
        if !texts.screen.isEmpty {
            let time = timeline.fps.time(ofFrame: index)
            root.sublayers += screenSeconds.candidates(at: time).compactMap {
                texts.screen[$0].layer(at: time, length: timeline.seconds, page: canvas.bounds.size, scale: canvas.scale)
            }
        }
        return root
    }

    /// The scene of frame `index` below the screen's text.
    private func pagesScene(at index: Int) -> Layer {
        let moment = timeline.moment(at: index)
        guard plan != nil else { return scene(moment) }
        let time = timeline.fps.time(ofFrame: index)
        switch moment {
        case let .hold(screen):
            return .root(canvas.bounds, [page(screen, at: time)])
        case let .transition(step, progress, _):
            // A hard cut takes no time, so none of its frames is between the slides.
            guard let cut = cuts[step] else { return .root(canvas.bounds, [page(step + 1, at: time)]) }
            return cut.cut(from: page(step, at: time), to: page(step + 1, at: time), progress: progress, bounds: canvas.bounds)
        }
    }

    /// What frame `index` shows when it is a still (a hold whose slide does not move), so that
    /// equal stills are composed once; nil for a frame that must be composed.
    public func still(at index: Int) -> Still? {
        let moment = timeline.moment(at: index)
        guard case let .hold(screen) = moment, !isClip(screen) else { return nil }
        if let plan, !plan.motions[screen].isStill { return nil }
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

    /// Frame `index`'s scene and the plan of its contents, the clips' pictures asked of their
    /// feeds. Frames that show a clip are planned in their order.
    func frame(at index: Int) -> FramePlan {
        let scene = scene(at: index)
        let contents = scene.contentsPlans(scale: canvas.scale)
        var clipKeys: [Int: [PictureKey]] = [:]
        for plan in contents { if let slide = plan.key.source.clipSlide { clipKeys[slide, default: []].append(plan.key) } }
        let clipPictures = clipKeys.map { slide, keys in
            (slide, feeds[slide]!.feed.request(time: keys[0].time, keys: Array(Set(keys))))
        }
        return FramePlan(index: index, scene: scene, contents: contents, clipPictures: Dictionary(uniqueKeysWithValues: clipPictures))
    }

    /// The pixels of a planned frame's contents, by key: still pictures not made yet are
    /// made (on `threads` threads), a clip's waited for and converted, unless a frame before
    /// drew the same.
    func images(for frame: FramePlan, threads: Int) throws -> [PictureKey: Image] {
        try pictures.prepare(frame.contents.lazy.map(\.key), threads: threads)
        let clips = try frame.clipPictures.mapValues { try $0.wait() }
        var images: [PictureKey: Image] = [:]
        for plan in frame.contents where images[plan.key] == nil {
            if let slide = plan.key.source.clipSlide, let clip = clips[slide] {
                images[plan.key] = try clip[plan.key]!.rgba()
            } else {
                images[plan.key] = try pictures.image(plan.key)
            }
        }
        return images
    }
}

/// What one frame shows, planned once: its scene, the pictures it draws, and the
/// clip pictures it draws as their feeds make them.
struct FramePlan: Sendable {
    let index: Int
    let scene: Layer
    let contents: [ContentsPlan]
    /// The pictures of each clip the frame shows, by slide.
    let clipPictures: [Int: ClipFeed.Pictures]
}
