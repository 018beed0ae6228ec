/// What one frame of a video shows.
public enum Moment: Equatable, Hashable, Sendable {
    /// Input `index` alone, still.
    case hold(index: Int)
    /// The transition from input `from` to input `from + 1`, at eased `progress` in 0...1
    /// (`linear` is the progress before the timing curve).
    case transition(from: Int, progress: Double, linear: Double)
}

/// The sequence hold, transition, hold, ..., hold over N inputs, sampled at a frame rate.
///
/// Frame i shows time i / fps. Input k holds from k (hold + duration) to
/// k (hold + duration) + hold; the transition after it then runs for `duration` with
/// linear progress (t - start) / duration, eased by the timing curve. The video lasts
/// N hold + (N - 1) duration seconds, rounded to whole frames.
public struct Timeline: Equatable, Sendable {
    public var inputCount: Int
    public var fps: Int
    public var hold: Double
    public var duration: Double
    public var curve: TimingCurve

    public init(inputCount: Int, fps: Int, hold: Double, duration: Double, curve: TimingCurve) {
        precondition(inputCount >= 1 && fps >= 1 && hold >= 0 && duration >= 0)
        self.inputCount = inputCount
        self.fps = fps
        self.hold = hold
        self.duration = duration
        self.curve = curve
    }

    /// Seconds from the first frame to the end of the last hold.
    public var seconds: Double { Double(inputCount) * hold + Double(inputCount - 1) * duration }

    /// round(fps x seconds), at least 1.
    public var frameCount: Int { max(1, Int((Double(fps) * seconds).rounded())) }

    /// The start time of the transition out of input `k`.
    public func transitionStart(_ k: Int) -> Double { Double(k) * (hold + duration) + hold }

    /// What frame `index` shows.
    public func moment(at index: Int) -> Moment {
        let t = Double(index) / Double(fps)
        let period = hold + duration
        let k = period > 0 ? min(inputCount - 1, max(0, Int((t / period).rounded(.down)))) : inputCount - 1
        guard k < inputCount - 1, duration > 0 else { return .hold(index: k) }
        let start = transitionStart(k)
        guard t >= start else { return .hold(index: k) }
        let linear = min((t - start) / duration, 1)
        return .transition(from: k, progress: curve(linear), linear: linear)
    }
}
