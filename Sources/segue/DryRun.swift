import Foundation
import Segue

/// `segue render --dry-run`: what a render would make, said without making it: its length,
/// and each cut's time (with `timing: beats`, the beat it is on and how far it moved).
enum DryRun {
    /// The lines, the first naming the output unless `output` is false (a check writes none).
    static func lines(_ job: Job, name: String, output: Bool = true) -> [String] {
        let timeline = job.timeline, fps = job.preset.fps
        let seconds = fps.time(ofFrame: timeline.frameCount)
        var lines = [String(format: "%@: %d %@, %.3f s (%d frames at %@ fps)", name, timeline.screenCount,
                            timeline.screenCount == 1 ? "screen" : "screens", seconds, timeline.frameCount, fps.description) + (output ? ", to \(job.output)" : "")]
        let beats = job.beats
        if let beats {
            let timing = beats.timing
            let grid = timing.on == .onset ? "every onset"
                : "\(timing.every == 1 ? "every" : "every \(ordinal(timing.every))") \(timing.on == .beat ? "beat" : "bar")"
            if let music = beats.music, let found = beats.grid {
                lines.append(String(format: "timing: beats of %@: %.2f BPM, %d/4, confidence %.2f; cuts on %@%@", (music as NSString).lastPathComponent,
                                    found.bpm, found.meter, found.confidence, grid, timing.offset == 0 ? "" : String(format: ", offset %+.3f s", timing.offset)))
            }
        }
        for step in 0..<timeline.durations.count {
            let settings: Preset.TransitionSettings? = job.plan.map { $0.cuts[step].settings } ?? job.preset.transition
            let duration = timeline.durations[step]
            let what = settings.map { settings in
                "\(settings.kind) \(fixed(duration)) s" + (settings.durationBeats.map { ", \(String(format: "%g", $0))b" } ?? "")
            } ?? "cut"
            let at = timeline.transitionStart(step) + duration / 2
            lines.append("cut \(step + 1) (\(what)): " + place(at, step, duration > 0 ? "centred at" : "next slide from", beats))
        }
        lines.append("end: " + place(timeline.seconds, timeline.durations.count, "at", beats))
        return lines
    }

    /// Where a cut (or the end, `step` past the cuts) is, and on what.
    static func place(_ time: Double, _ step: Int, _ how: String, _ beats: BeatReport?) -> String {
        var text = "\(how) \(fixed(time)) s"
        guard let beats, step < beats.placed.count else { return text }
        let placed = beats.placed[step]
        if let point = placed.point, point < beats.points.count {
            text += ", on \(beats.points[point].label), moved \(fixed(placed.moved, sign: true)) s"
        } else if let why = placed.why {
            text += ", off the grid: \(why)"
        }
        return text
    }

    /// `value` with three decimals (and its sign, with `sign`), as `%.3f` (`%+.3f`) writes it,
    /// without Foundation's formatter: a story of many cuts has a line for each.
    static func fixed(_ value: Double, sign: Bool = false) -> String {
        let thousandths = Int((abs(value) * 1000).rounded())
        let fraction = String(thousandths % 1000)
        let negative = value < 0 && thousandths > 0
        return (negative ? "-" : sign ? "+" : "") + "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }
}
