import Dispatch
import Foundation

/// The one owner of what a run's frames draw: the still pictures (`pictures`), the clips'
/// feeds, and the thread that makes pictures ahead of the frames. It opens, prepares and lets
/// go by its `FrameSchedule`, and nothing else moves it: the frame pipeline says when a frame
/// is about to be planned (`willPlan`) and when it is shown (`didShow`), in the frames' order.
///
/// Its thread starts when it is made, so the first screen's pictures are made on all the
/// threads while the export opens its encoder, and the others' one by one beside the export
/// as the schedule asks (two screens ahead), with each overlay's first picture a second before
/// it shows. A picture is waited for only if a frame needs it before it is ready (the frame
/// then makes it, and reports its error). The thread holds the owner only while it works, so
/// an owner let go (an export done or stopped) ends it.
final class FrameResources: Sendable {
    let pictures: PictureCache
    let schedule: FrameSchedule
    /// The feeds of the clip slides the run draws, by slide.
    private let feeds: [Int: ClipFeed]

    private struct State {
        /// The next step of each of the schedule's lists to take.
        var planning = 0
        var showing = 0
        /// The last screen whose pictures the thread may make now, and the overlays' pictures
        /// it is to draw first.
        var wanted = -1
        var overlays: [[PictureKey]] = []
    }

    private let state = Locked(State())
    /// Signalled when the thread has more to make, and when the owner goes.
    private let wake = DispatchSemaphore(value: 0)
    private let stop = Cancellation()

    /// The owner of `pictures` and of a feed for each clip of `clips` that `schedule` draws;
    /// `sizes` gives each still source's upright size, so that it is decoded only where the
    /// screens read it. With `yielding`, the thread runs at a lower priority
    /// (`Threads.lowerThisThread`).
    init(pictures: PictureCache, schedule: FrameSchedule, clips: [Int: ClipSlide], sizes: (PictureSource) -> Size?,
         limits: Limits, threads: Int, yielding: Bool) {
        self.pictures = pictures
        self.schedule = schedule
        feeds = Dictionary(uniqueKeysWithValues: schedule.clips.keys.map { ($0, ClipFeed(clip: clips[$0]!, limits: limits, threads: threads)) })
        pictures.plan(reading: schedule.keysBySource, sizes: sizes)
        if let first = schedule.beforePlanning.first?.frame { willPlan(first) }
        let state = self.state, wake = self.wake, stop = self.stop
        Threads.start(.preparingPictures, yielding: yielding) { [weak self] in
            var next = schedule.firstScreen
            while !stop.isCancelled {
                let work = state.withLock { state -> Work? in
                    if !state.overlays.isEmpty { return .overlays(state.overlays.removeFirst()) }
                    return next < schedule.screens.count && next <= state.wanted ? .screen(next) : nil
                }
                guard let work else { wake.wait(); continue }
                guard let owner = self else { return }
                switch work {
                case let .overlays(keys):
                    try? owner.pictures.prepare(keys, threads: 1)
                case let .screen(screen):
                    try? owner.pictures.prepare(schedule.screens[screen], threads: screen == schedule.firstScreen ? threads : 1)
                    owner.pictures.releaseSources(whoseKeysAreReady: schedule.keysBySource)
                    next += 1
                }
            }
        }
    }

    private enum Work {
        case overlays([PictureKey])
        case screen(Int)
    }

    deinit {
        stop.cancel()
        wake.signal()
        for feed in feeds.values { feed.stop() }
    }

    /// Takes the schedule's steps due before frame `index` is planned.
    func willPlan(_ index: Int) {
        for timed in due(schedule.beforePlanning, at: index, cursor: \.planning) { take(timed.step) }
    }

    /// Takes the schedule's steps due once frame `index` is shown.
    func didShow(_ index: Int) {
        for timed in due(schedule.afterShowing, at: index, cursor: \.showing) { take(timed.step) }
    }

    /// The steps of `list` due at `index` not taken yet, moving its cursor past them.
    private func due(_ list: [FrameSchedule.Timed], at index: Int, cursor: WritableKeyPath<State, Int>) -> ArraySlice<FrameSchedule.Timed> {
        let range = state.withLock { state -> Range<Int> in
            let from = state[keyPath: cursor]
            while state[keyPath: cursor] < list.count, list[state[keyPath: cursor]].frame <= index { state[keyPath: cursor] += 1 }
            return from..<state[keyPath: cursor]
        }
        return list[range]
    }

    private func take(_ step: FrameSchedule.Step) {
        switch step {
        case let .openClip(slide):
            feeds[slide]?.open()
        case let .closeClip(slide):
            feeds[slide]?.close()
        case let .prepareScreens(through: screen):
            state.withLock { $0.wanted = max($0.wanted, screen) }
            wake.signal()
        case let .drawAhead(keys):
            state.withLock { $0.overlays.append(keys) }
            wake.signal()
        case let .release(sources):
            pictures.forget(sources: sources)
        }
    }

    /// Frame `index` of `board` planned: its scene, the plan of its contents, and its clips'
    /// pictures asked of their feeds. Frames that show a clip are planned in their order.
    func plan(_ index: Int, of board: Storyboard) -> FramePlan {
        let scene = board.scene(at: index)
        let samples = board.blurSamples(at: index)
        var contents = scene.contentsPlans(scale: board.canvas.scale)
        if !samples.isEmpty {
            // The samples draw the same pictures (their clips at the frame's time), each planned once.
            var keys = Set(contents.map(\.key))
            for sample in samples {
                for plan in sample.contentsPlans(scale: board.canvas.scale) where keys.insert(plan.key).inserted { contents.append(plan) }
            }
        }
        var clipKeys: [Int: [PictureKey]] = [:]
        for plan in contents { if let slide = plan.key.source.clipSlide { clipKeys[slide, default: []].append(plan.key) } }
        let clipPictures = clipKeys.map { slide, keys in (slide, feeds[slide]!.request(time: keys[0].time, keys: Array(Set(keys)))) }
        return FramePlan(index: index, scene: scene, samples: samples, contents: contents,
                         clipPictures: Dictionary(uniqueKeysWithValues: clipPictures))
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
    /// The scenes a blurred frame is the mean of (`Storyboard.blurSamples`); empty when the
    /// frame is its scene alone.
    let samples: [Layer]
    let contents: [ContentsPlan]
    /// The pictures of each clip the frame shows, by slide.
    let clipPictures: [Int: ClipFeed.Pictures]

    /// The draw lists the frame is the mean of (its scene's alone, unless it is blurred),
    /// their pictures found in `images` (`FrameResources.images(for:threads:)`).
    func drawLists(scale: Double, images: [PictureKey: Image]) -> [[DrawItem]] {
        (samples.isEmpty ? [scene] : samples).map { $0.drawList(scale: scale, images: images) }
    }
}
