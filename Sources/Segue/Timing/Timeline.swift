/// What one frame of a video shows.
public enum Moment: Equatable, Hashable, Sendable {
    /// Screen `index`, still.
    case hold(index: Int)
    /// Transition `step` (from screen `step` to screen `step + 1`) at `progress`; `linear`
    /// is the fraction of its duration elapsed, before any timing curve.
    case transition(step: Int, progress: Double, linear: Double)
}

/// The sequence hold, transition, hold, ..., hold over a number of screens, sampled at a
/// frame rate.
///
/// Frame i shows time i / fps. Screen k holds for `hold` seconds, then transition k runs
/// for `durations[k]` with linear progress (t - start) / duration, which `progress` turns
/// into the progress it is drawn at (a timing curve). The video lasts
/// screens x hold + the sum of the durations, rounded to whole frames.
public struct Timeline: Sendable {
    public let screenCount: Int
    public let fps: Int
    public let hold: Double
    /// Seconds of each transition; one fewer than the screens.
    public let durations: [Double]
    /// Eased progress of transition `step` from its linear progress.
    public let progress: @Sendable (_ step: Int, _ linear: Double) -> Double
    /// Start time of each transition.
    private let starts: [Double]

    public init(screenCount: Int, fps: Int, hold: Double, durations: [Double],
                progress: @escaping @Sendable (_ step: Int, _ linear: Double) -> Double) {
        precondition(screenCount >= 1 && fps >= 1 && hold >= 0 && durations.count == screenCount - 1)
        self.screenCount = screenCount
        self.fps = fps
        self.hold = hold
        self.durations = durations
        self.progress = progress
        var starts: [Double] = []
        var t = hold
        for d in durations {
            starts.append(t)
            t += d + hold
        }
        self.starts = starts
    }

    /// N screens joined by transitions of one duration and one timing curve.
    public init(screenCount: Int, fps: Int, hold: Double, duration: Double, curve: TimingCurve) {
        self.init(screenCount: screenCount, fps: fps, hold: hold,
                  durations: Array(repeating: duration, count: screenCount - 1), progress: { _, t in curve(t) })
    }

    /// Seconds from the first frame to the end of the last hold.
    public var seconds: Double { Double(screenCount) * hold + durations.reduce(0, +) }

    /// round(fps x seconds), at least 1.
    public var frameCount: Int { max(1, Int((Double(fps) * seconds).rounded())) }

    /// The start time of transition `step`.
    public func transitionStart(_ step: Int) -> Double { starts[step] }

    /// What frame `index` shows.
    public func moment(at index: Int) -> Moment {
        let t = Double(index) / Double(fps)
        // The last transition that has started by t, if any.
        var step = -1
        while step + 1 < starts.count, starts[step + 1] <= t { step += 1 }
        guard step >= 0 else { return .hold(index: 0) }
        let elapsed = t - starts[step]
        guard elapsed < durations[step] else { return .hold(index: step + 1) }
        let linear = elapsed / durations[step]
        return .transition(step: step, progress: progress(step, linear), linear: linear)
    }
}
