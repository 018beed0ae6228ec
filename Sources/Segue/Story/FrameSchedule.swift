import Foundation

/// When the frames of a run need what they draw, worked out once from the storyboard before
/// the first frame is drawn: for each clip, still picture, text and sticker, the frame before
/// which it is opened or made (a second ahead for a clip or an overlay, two screens ahead for
/// a still) and the frame after which it is let go (its last). A value: `FrameResources`
/// takes its steps as the frames are planned (`beforePlanning`) and shown (`afterShowing`).
///
/// The frames are taken in the order given, which is the order of time (a whole video, a
/// chunk, a segment, sampled frames or a `--frames` list, all ascending); a step is due once
/// the frame it names, or any later one, is reached.
struct FrameSchedule: Sendable {
    enum Step: Sendable {
        /// Open a clip slide's feed (decode its first frame): its first frame is a second away.
        case openClip(Int)
        /// Have the still pictures of the screens up to this one made.
        case prepareScreens(through: Int)
        /// Draw these overlays' first pictures: they first show within a second.
        case drawAhead([PictureKey])
        /// Close a clip slide's feed: its last frame is shown.
        case closeClip(Int)
        /// Let go of these sources' pictures and pixels: no later frame draws them.
        case release(Set<PictureSource>)
    }

    /// A step, and the frame from which it is due.
    struct Timed: Sendable {
        var frame: Int
        var step: Step
    }

    /// The steps to take before a frame is planned, in the frames' order.
    let beforePlanning: [Timed]
    /// The steps to take once a frame is shown, in the frames' order.
    let afterShowing: [Timed]
    /// The frames each clip slide is drawn on, first to last, by slide (clips drawn on none
    /// of the run's frames are not there, and are never opened).
    let clips: [Int: ClosedRange<Int>]
    /// Each screen's still pictures (a story's slide at the start of its hold).
    let screens: [[PictureKey]]
    /// Every still picture the screens draw, by source: a source's full-size pixels are let
    /// go once all of its are made.
    let keysBySource: [PictureSource: Set<PictureKey>]
    /// The screen of the first frame: its pictures are made first, on every thread.
    let firstScreen: Int

    /// Screens prepared ahead of the one being planned. Two: a decode and a resample take a
    /// few tenths of a second, a short hold and its transition about as long to encode.
    static let screensAhead = 2
    /// Seconds before an overlay first shows that its first picture is drawn (a clip is opened
    /// a second's frames before its first).
    static let lead = 1.0

    /// The schedule of `frames` (indices of `board`'s timeline, ascending).
    init(_ board: Storyboard, frames: [Int]) {
        let timeline = board.timeline, scale = board.canvas.scale, count = timeline.screenCount
        screens = (0..<count).map { PictureCache.keys(in: board.screen($0), scale: scale).filter { $0.source.clipSlide == nil } }
        keysBySource = Dictionary(grouping: screens.joined(), by: \.source).mapValues(Set.init)
        // The sources each screen draws (a slide's text and stickers go with it), and the
        // sources whose last screen each screen is.
        var drawnOn = screens.map { Set($0.map(\.source)) }
        if board.plan != nil {
            for (slide, placed) in board.texts.slides.enumerated() where slide < count {
                for overlay in placed { drawnOn[slide].formUnion(overlay.sources) }
            }
        }
        var lastScreen: [PictureSource: Int] = [:]
        for (screen, drawn) in drawnOn.enumerated() { for source in drawn { lastScreen[source] = screen } }
        var ending = [Set<PictureSource>](repeating: [], count: count)
        for (source, screen) in lastScreen { ending[screen].insert(source) }
        let ahead = FrameSchedule.firstPictures(of: board)

        // The frames each clip slide is drawn on, read from the timeline: no scene built.
        let clipSlides = Set(board.pages.indices.filter(board.isClip))
        var drawn: [Int: ClosedRange<Int>] = [:]
        if !clipSlides.isEmpty {
            for index in frames {
                for slide in board.slides(at: index) where clipSlides.contains(slide) {
                    drawn[slide] = (drawn[slide]?.lowerBound ?? index)...index
                }
            }
        }
        clips = drawn
        let byFirst = drawn.sorted { $0.value.lowerBound < $1.value.lowerBound }
        let lead = timeline.fps.perSecond
        let captions = board.screenSeconds, screenTexts = board.texts.screen

        var before: [Timed] = [], after: [Timed] = []
        var opened = 0, asked = 0, ended = 0, planned = -1, shown = -1
        for index in frames {
            // The slides it shows (one moment of the timeline a frame); its screen is the first.
            let shows = board.slides(at: index), screen = shows.lowerBound, time = timeline.fps.time(ofFrame: index)
            while opened < byFirst.count, byFirst[opened].value.lowerBound <= index + lead {
                before.append(Timed(frame: index, step: .openClip(byFirst[opened].key)))
                opened += 1
            }
            var soon: [PictureKey] = []
            while asked < ahead.count, ahead[asked].time < time + FrameSchedule.lead {
                soon += ahead[asked].keys
                asked += 1
            }
            if !soon.isEmpty { before.append(Timed(frame: index, step: .drawAhead(soon))) }
            if screen > planned {
                planned = screen
                before.append(Timed(frame: index, step: .prepareScreens(through: screen + FrameSchedule.screensAhead)))
            }

            for slide in shows where drawn[slide]?.upperBound == index {
                after.append(Timed(frame: index, step: .closeClip(slide)))
            }
            // The screen's text that has ended (captions) is drawn by no later frame.
            let over = captions.endedCount(before: time)
            if over > ended {
                let sources = captions.ends[ended..<over].reduce(into: Set<PictureSource>()) { $0.formUnion(screenTexts[$1.index].sources) }
                after.append(Timed(frame: index, step: .release(sources)))
                ended = over
            }
            // Screens are shown in order: those passed are not drawn again (if they are, by a
            // frame asked out of order, their pictures are made again).
            if screen > shown {
                let passed = ending[min(max(0, shown), count)..<min(screen, count)].reduce(into: Set<PictureSource>()) { $0.formUnion($1) }
                if !passed.isEmpty { after.append(Timed(frame: index, step: .release(passed))) }
                shown = screen
            }
        }
        beforePlanning = before
        afterShowing = after
        firstScreen = frames.first.map(board.screen(of:)) ?? 0
    }

    /// Each overlay's first picture, by the time it first shows (seconds of the video).
    private static func firstPictures(of board: Storyboard) -> [(time: Double, keys: [PictureKey])] {
        let canvas = board.canvas, timeline = board.timeline
        var ahead: [(time: Double, keys: [PictureKey])] = []
        func first(_ placed: OverlayPictures.Placed, from origin: Double, length: Double) {
            let start = max(0, placed.overlay.span.start)
            guard let layer = placed.layer(at: start, length: length, page: canvas.bounds.size, scale: canvas.scale) else { return }
            ahead.append((origin + start, PictureCache.keys(in: layer, scale: canvas.scale)))
        }
        for placed in board.texts.screen { first(placed, from: 0, length: timeline.seconds) }
        if board.plan != nil {
            for (slide, list) in board.texts.slides.enumerated() where slide < timeline.screenCount {
                let span = timeline.timeOnScreen(slide)
                for placed in list { first(placed, from: span.lowerBound, length: span.upperBound - span.lowerBound) }
            }
        }
        return ahead.sorted { $0.time < $1.time }
    }
}
