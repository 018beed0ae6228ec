/// Motion blur's samples of a frame (`MotionBlur`): the scenes of the moments over its
/// shutter window, which the compositor draws and averages.
extension Storyboard {
    /// Scenes probed across a window to measure how far its pixels travel.
    static let motionProbes = 9

    /// The scenes frame `index` is the mean of when it is blurred, in the order of their
    /// times; empty for a frame that is not (no blur asked for, or nothing moves over its
    /// window: a hold, a still page, a crossfade's mix): that frame is its scene alone.
    ///
    /// A frame is blurred by the `motionBlur` of the transition whose time its window reaches
    /// (its cut's, or the preset's transition's without a plan): its own transition's, or, for
    /// a hold's frame next to one, that one's; else by its slide's `motion.motionBlur` if the
    /// slide moves. Each sample shows what the video shows at its time: past a transition's
    /// ends, the still pages. Clips, stickers and text show the frame's own time in every
    /// sample: what moves is the transition and the pages' Ken Burns motion.
    func blurSamples(at index: Int) -> [Layer] {
        let time = timeline.fps.time(ofFrame: index)
        guard let (blur, bound) = blur(at: time) else { return [] }
        let width = blur.window(fps: timeline.fps)
        func scene(_ t: Double) -> Layer {
            withScreenText(pagesScene(timeline.moment(atTime: min(max(t, 0), timeline.seconds)), at: time, motionTime: t), at: time)
        }

        // How far the pixels move over the window: the layers' points, and the transition's own bound.
        let probes = (0..<Storyboard.motionProbes).map { time - width / 2 + width * Double($0) / Double(Storyboard.motionProbes - 1) }
        var travel = Layer.farthestTravel(through: probes.map(scene), scale: canvas.scale)
        let progresses = probes.map { t -> Double in
            switch timeline.moment(atTime: min(max(t, 0), timeline.seconds)) {
            case let .transition(step, progress, _): return Double(step) + progress
            case let .hold(screen): return Double(screen)
            }
        }
        let change = zip(progresses, progresses.dropFirst()).map { abs($1 - $0) }.reduce(0, +)
        if change > 0 {
            switch bound {
            case .layers: break
            case let .points(points): travel = max(travel, points * canvas.scale * change)
            case let .samples(count): travel = max(travel, Double(count))
            }
        }
        let count = blur.sampleCount(moving: travel)
        guard count > 1 else { return [] }
        return MotionBlur.offsets(count, width: width).map { scene(time + $0) }
    }

    /// Whether a frame at `time` may be blurred: false for most frames of a hold, so that
    /// equal stills are still composed once.
    func mayBlur(at time: Double) -> Bool { blur(at: time) != nil }

    /// The blur of a frame at `time` and the motion bound of what it blurs; nil for none.
    private func blur(at time: Double) -> (MotionBlur, MotionBound)? {
        func ofStep(_ step: Int) -> (MotionBlur, MotionBound)? {
            guard timeline.durations.indices.contains(step) else { return nil }
            if plan == nil { return transitionBlur.isOff ? nil : (transitionBlur, transition.motionBound(bounds: canvas.bounds)) }
            guard let cut = cuts[step], !cutBlurs[step].isOff else { return nil }
            return (cutBlurs[step], cut.motionBound(bounds: canvas.bounds))
        }
        switch timeline.moment(atTime: time) {
        case let .transition(step, _, _):
            return ofStep(step)
        case let .hold(screen):
            // A neighbouring transition the window reaches.
            for step in [screen - 1, screen] {
                guard let found = ofStep(step) else { continue }
                let half = found.0.window(fps: timeline.fps) / 2, start = timeline.transitionStart(step)
                if time - half < start + timeline.durations[step] && time + half > start { return found }
            }
            guard let plan, plan.motions.indices.contains(screen), !plan.motions[screen].isStill, !plan.motions[screen].motionBlur.isOff else { return nil }
            return (plan.motions[screen].motionBlur, .layers)
        }
    }
}
