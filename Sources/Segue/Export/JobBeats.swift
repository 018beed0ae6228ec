import Foundation

/// What `timing: beats` made of a job's timeline: the music's grid, the points the cuts could
/// move to, where each cut went, or why the story kept its own holds.
public struct BeatReport: Sendable {
    public var timing: BeatTiming
    /// The music's file, when there is music.
    public var music: String?
    /// Its grid, when it was analysed.
    public var grid: BeatGrid?
    /// Seconds a beat lasts, for durations given in beats: the music's, or 120 BPM's when it has
    /// no clear beat.
    public var beat: Double
    /// The grid's points within the video, in its time.
    public var points: [BeatPoint] = []
    /// Each cut's placing, then the end's; empty when the story keeps its own holds.
    public var placed: [BeatFit.Placed] = []
    /// Why the story keeps its own holds (said as a warning), when it does.
    public var fallback: String?

    /// A beat's length when the music gives none (120 BPM).
    static let defaultBeat = 0.5

    /// The music's grid for `preset`'s timing, analysed once per file (`BeatCache`). Music
    /// without a clear beat, or none, gives a report with a `fallback`, or an error (exit 2)
    /// under `beats: strict`.
    static func analysing(_ preset: Preset) throws -> BeatReport {
        let timing = preset.timing
        var report = BeatReport(timing: timing, music: preset.audio.file, beat: defaultBeat)
        guard let file = preset.audio.file else {
            return try report.fallingBack("there is no music to time the cuts to (audio: FILE)")
        }
        if let problem = Job.audioProblem(file, start: preset.audio.start) { throw problem }
        let grid = try BeatCache.grid(of: file)
        report.grid = grid
        let name = (file as NSString).lastPathComponent
        if grid.beats.isEmpty {
            return try report.fallingBack("\(name) has no beat (no onsets found)")
        }
        if grid.confidence < timing.confidence {
            return try report.fallingBack(String(format: "%@ has no clear beat (confidence %.2f, under timing.confidence %.2f: speech, silence or free time)",
                                                 name, grid.confidence, timing.confidence))
        }
        report.beat = 60 / grid.bpm
        return report
    }

    /// This report keeping the story's holds for `reason`, or the error `strict` makes of it.
    private func fallingBack(_ reason: String) throws -> BeatReport {
        guard timing.mode != .strict else {
            throw PresetError.invalid(key: "timing.beats", origin: timing.origin, value: "strict",
                                      expected: "music with a clear beat to time the cuts to; \(reason)")
        }
        var report = self
        report.fallback = "timing: beats: \(reason); the story keeps its own holds"
        return report
    }

    /// `timeline` with its cuts on the grid (the plan's holds made the same), or as it is
    /// when the report falls back.
    mutating func fit(_ timeline: Timeline, plan: inout StoryPlan?, slides: [StorySlide], clips: [Int: ClipSlide],
                      start: Double, loop: Bool) -> Timeline {
        guard fallback == nil, let grid else { return timeline }
        // Far enough for any fit: every hold at its longest.
        let story = plan != nil
        let bounds = timeline.holds.indices.map { index -> BeatFit.Bounds in
            let slide = story && index < slides.count ? slides[index] : nil
            let change: BeatFit.Bounds.Change = clips[index] == nil ? .free : timing.give == .cut ? .shorter : .fixed
            return timing.bounds(hold: timeline.holds[index], min: slide?.minHold, max: slide?.maxHold, change: change)
        }
        let reach = bounds.reduce(0) { $0 + $1.max } + timeline.durations.reduce(0, +) + 60
        let all = timing.points(of: grid, start: start, loop: loop, upTo: reach)
        let fitted = BeatFit(bounds: bounds, durations: timeline.durations, points: all.map(\.time))
        placed = fitted.placed
        plan?.holds = fitted.holds
        let result = Timeline(holds: fitted.holds, fps: timeline.fps, durations: timeline.durations, progress: timeline.progress)
        let end = result.seconds + 1e-6
        points = all.filter { $0.time <= end }
        return result
    }
}
