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
/// Frame i shows time i / fps (exactly: i × 1001 / 30000 at 29.97). Screen k holds for
/// `holds[k]` seconds, then transition k runs for `durations[k]` with linear progress
/// (t - start) / duration, which `progress` turns into the progress it is drawn at (a timing
/// curve). The video lasts the sum of the holds
/// and the durations, rounded to whole frames.
public struct Timeline: Sendable {
    public let screenCount: Int
    public let fps: FrameRate
    /// Seconds each screen holds still.
    public let holds: [Double]
    /// Seconds of each transition; one fewer than the screens.
    public let durations: [Double]
    /// Eased progress of transition `step` from its linear progress.
    public let progress: @Sendable (_ step: Int, _ linear: Double) -> Double
    /// Start time of each transition.
    private let starts: [Double]

    public init(holds: [Double], fps: FrameRate, durations: [Double], progress: @escaping @Sendable (_ step: Int, _ linear: Double) -> Double) {
        precondition(!holds.isEmpty && holds.allSatisfy { $0 >= 0 } && durations.count == holds.count - 1)
        self.screenCount = holds.count
        self.fps = fps
        self.holds = holds
        self.durations = durations
        self.progress = progress
        var starts: [Double] = []
        var t = 0.0
        for (hold, d) in zip(holds, durations) {
            t += hold
            starts.append(t)
            t += d
        }
        self.starts = starts
    }

    /// Screens that all hold `hold` seconds.
    public init(screenCount: Int, fps: FrameRate, hold: Double, durations: [Double],
                progress: @escaping @Sendable (_ step: Int, _ linear: Double) -> Double) {
        self.init(holds: Array(repeating: hold, count: screenCount), fps: fps, durations: durations, progress: progress)
    }

    /// N screens joined by transitions of one duration and one timing curve.
    public init(screenCount: Int, fps: FrameRate, hold: Double, duration: Double, curve: TimingCurve) {
        self.init(screenCount: screenCount, fps: fps, hold: hold,
                  durations: Array(repeating: duration, count: screenCount - 1), progress: { _, t in curve(t) })
    }

    /// Seconds from the first frame to the end of the last hold.
    public var seconds: Double { holds.reduce(0, +) + durations.reduce(0, +) }

    /// When screen `index` is first and last seen: from the start of the transition into it
    /// (0 for the first) to the end of the transition out of it (the end for the last).
    public func timeOnScreen(_ index: Int) -> ClosedRange<Double> {
        let first = index == 0 ? 0 : starts[index - 1]
        let last = index == screenCount - 1 ? seconds : starts[index] + durations[index]
        return first...max(first, last)
    }

    /// round(fps x seconds), at least 1.
    public var frameCount: Int { max(1, Int(fps.frames(in: seconds).rounded())) }

    /// The start time of transition `step`.
    public func transitionStart(_ step: Int) -> Double { starts[step] }

    /// Transition `step` at `t` seconds, held at its ends outside its time: what a frame of it
    /// blurred over a shutter window reaching past its ends shows there (`MotionBlur`).
    public func moment(ofStep step: Int, atTime t: Double) -> Moment {
        let linear = durations[step] > 0 ? min(max((t - starts[step]) / durations[step], 0), 1) : 1
        return .transition(step: step, progress: progress(step, linear), linear: linear)
    }

    /// What frame `index` shows.
    public func moment(at index: Int) -> Moment { moment(atTime: fps.time(ofFrame: index)) }

    /// What the video shows at `t` seconds.
    public func moment(atTime t: Double) -> Moment {
        // The last transition that has started by t, if any (the starts never decrease: a
        // binary search, so a story of many slides costs each frame a few steps).
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= t { low = middle + 1 } else { high = middle }
        }
        let step = low - 1
        guard step >= 0 else { return .hold(index: 0) }
        let elapsed = t - starts[step]
        guard elapsed < durations[step] else { return .hold(index: step + 1) }
        let linear = elapsed / durations[step]
        return .transition(step: step, progress: progress(step, linear), linear: linear)
    }

    /// About `count` frames that show the video at a glance, in order: the first hold, frames
    /// spread evenly through each transition (the frames between the holds, where transitions
    /// differ), and the last hold. When there are more transitions than frames to spare,
    /// evenly chosen transitions get one frame each, at their middle.
    public func sample(_ count: Int) -> [Int] {
        let last = frameCount - 1
        func frame(_ t: Double) -> Int { min(max(Int(fps.frames(in: t).rounded()), 0), last) }
        let moving = durations.indices.filter { fps.frames(in: durations[$0]) >= 1 }
        let spare = count - 2
        guard count >= 3, !moving.isEmpty, spare >= 1 else {
            let n = min(count, frameCount)
            return n <= 1 ? [0] : (0..<n).map { Int((Double($0) * Double(last) / Double(n - 1)).rounded()) }
        }
        var times = [holds[0] / 2]
        if spare < moving.count {
            for i in 0..<spare {
                let step = moving[Int((Double(i) + 0.5) * Double(moving.count) / Double(spare))]
                times.append(starts[step] + durations[step] / 2)
            }
        } else {
            for (n, step) in moving.enumerated() {
                let k = spare / moving.count + (n < spare % moving.count ? 1 : 0)
                for i in 1...k { times.append(starts[step] + durations[step] * Double(i) / Double(k + 1)) }
            }
        }
        times.append(seconds - holds[holds.count - 1] / 2)
        var frames: [Int] = []
        for f in times.map(frame) where frames.last != f { frames.append(f) }
        return frames
    }
}
