import CSegueAV
import Foundation

/// Cuts timed to the music (`timing: beats`): which of the music's grid points the cuts move
/// to, how holds may change to reach them, and what happens when the music has no clear beat.
///
/// ```yaml
/// timing: {beats: true, every: 2, on: beat, offset: 0, fit: hold}
/// ```
public struct BeatTiming: Sendable {
    public enum Mode: String, Sendable {
        /// The story keeps its own holds.
        case off
        /// Cuts on the grid; music without a clear beat keeps the story's holds, with a warning.
        case on
        /// Cuts on the grid; music without a clear beat is an error.
        case strict
    }

    /// The points a cut may move to.
    public enum Grid: String, CaseIterable, Sendable {
        case beat, downbeat, onset
    }

    /// What may change to put a cut on the grid.
    public enum Give: String, CaseIterable, Sendable {
        /// The slides' holds; a clip's slide keeps its own length.
        case hold
        /// The holds, and a clip's slide may also be trimmed (never made longer).
        case cut
    }

    public var mode = Mode.off
    public var on = Grid.beat
    /// Beats (or bars) between grid points.
    public var every = 1
    /// Seconds added to every grid point (negative: ahead of the beat).
    public var offset = 0.0
    public var give = Give.hold
    /// The shortest and longest a hold may become, in seconds; nil: half, and twice, its hold.
    public var min: Double?
    public var max: Double?
    /// The music's grid confidence under which it has no clear beat.
    public var confidence = 0.3
    /// Where `timing` was set, for the errors about it.
    public var origin = ConfigOrigin.builtIn

    public init() {}

    public var isOn: Bool { mode != .off }

    /// Reads a `timing` section (`timing: beats` is `{beats: true}`; see `ConfigNode.timingShorthand`).
    init(reading t: inout ConfigReader) throws {
        origin = t.node.origin
        let mode = try t.parsed("beats", default: Mode.off, shown: "false", type: "boolean or strict", expected: "true, false or strict",
                                "Cuts on the music's beat grid (segue beats): true; strict makes music without a clear beat an error rather than a warning. `timing: beats` is short for {beats: true}.") { text in
            ["true": .on, "false": .off, "strict": .strict][text]
        }
        self.mode = mode
        on = Grid(rawValue: try t.choice("on", default: "beat", among: Grid.allCases.map(\.rawValue),
                                         "The grid the cuts move to: every beat, the bars' first beats (downbeat), or the music's onsets (its notes and hits, irregular)."))!
        every = try t.integer("every", default: 1, in: 1...64, "Beats (or bars, with on: downbeat) from one grid point to the next, counted from the first bar; onsets take every one.")
        if on == .onset, every != 1, let node = t.node["every"] {
            throw PresetError.invalid(key: t.fullKey("every"), origin: node.origin, value: "\(every)",
                                      expected: "1 with on: onset (onsets come irregularly; every counts beats or bars)")
        }
        offset = try t.number("offset", default: 0, in: -2...2, "Seconds added to every grid point: negative puts cuts ahead of the beat.")
        give = Give(rawValue: try t.choice("fit", default: "hold", among: Give.allCases.map(\.rawValue),
                                           "What changes to put a cut on the grid: hold, the slides' holds (a clip keeps its own length); cut, a clip may be trimmed too."))!
        min = try BeatTiming.seconds(&t, "min", "The shortest a slide's hold may become to reach the grid, in seconds (a slide's own min wins); ~: half its hold.")
        max = try BeatTiming.seconds(&t, "max", "The longest a slide's hold may become to reach the grid, in seconds (a slide's own max wins); ~: twice its hold.")
        confidence = try t.number("confidence", default: 0.3, in: 0...1,
                                  "The grid confidence (segue beats) under which the music has no clear beat: the story keeps its holds, with a warning (an error with beats: strict).")
    }

    /// Seconds, or nil (`~`).
    static func seconds(_ r: inout ConfigReader, _ key: String, _ meaning: String) throws -> Double? {
        try r.parsed(key, default: Double?.none, shown: "~", type: "number", expected: "seconds, 0...3600, or ~", meaning) { text -> Double?? in
            if ["~", "null", ""].contains(text) { return .some(nil) }
            guard let value = Double(text), (0...3600).contains(value) else { return nil }
            return .some(value)
        }
    }

    /// The bounds of a hold of `hold` seconds, with a slide's own `min` and `max`.
    func bounds(hold: Double, min ownMin: Double? = nil, max ownMax: Double? = nil, change: BeatFit.Bounds.Change = .free) -> BeatFit.Bounds {
        BeatFit.Bounds(hold: hold, min: ownMin ?? self.min ?? hold / 2, max: ownMax ?? self.max ?? hold * 2, change: change)
    }

    /// The grid points of `grid` in the video's time, sorted, with what each is: the music
    /// plays from `start` seconds into its file, looped (the loop's seam as `Soundtrack`
    /// makes it) when `loop`, as far as `seconds` of video.
    func points(of grid: BeatGrid, start: Double, loop: Bool, upTo seconds: Double) -> [BeatPoint] {
        var base: [BeatPoint] = []
        let first = grid.downbeats.first.flatMap { grid.beats.firstIndex(of: $0) } ?? 0
        switch on {
        case .beat:
            base.reserveCapacity(grid.beats.count / every + 1)
            for (i, time) in grid.beats.enumerated() where ((i - first) % every + every) % every == 0 {
                base.append(BeatPoint(time: time, what: .beat(i, fromBar: i - first, meter: grid.meter)))
            }
        case .downbeat:
            for (n, time) in grid.downbeats.enumerated() where n % every == 0 { base.append(BeatPoint(time: time, what: .bar(n))) }
        case .onset:
            base = grid.onsets.enumerated().map { BeatPoint(time: $1, what: .onset($0)) }
        }
        let played = base.filter { $0.time >= start }.map { BeatPoint(time: $0.time - start + offset, what: $0.what) }
        // The loop restarts the file at `start`, its last samples crossfaded into the first.
        let period = grid.seconds - start - Double(SEGUE_LOOP_CROSSFADE) / 48000
        var points = played.filter { $0.time >= 0 }
        guard loop, period > 0.5, !played.isEmpty else { return points }
        var pass = 1
        while played[0].time + Double(pass) * period <= seconds {
            for point in played where point.time + Double(pass) * period >= 0 {
                points.append(BeatPoint(time: point.time + Double(pass) * period, what: point.what, pass: pass))
            }
            pass += 1
        }
        return points
    }
}

/// A point of the grid cuts move to, in the video's time, and what it is: its `label` says
/// ("beat 5 (bar 2, beat 1)"), made only when asked (a long looped track has many points).
public struct BeatPoint: Equatable, Sendable {
    public enum What: Equatable, Sendable {
        /// Beat `index` (0-based) of the file, `fromBar` beats after the first bar's first.
        case beat(Int, fromBar: Int, meter: Int)
        case bar(Int)
        case onset(Int)
    }

    public var time: Double
    public var what: What
    /// Times the music had looped when it plays.
    public var pass = 0

    public var label: String {
        var text: String
        switch what {
        case let .beat(index, k, m):
            let bar = k >= 0 ? k / m : -((-k + m - 1) / m)
            text = "beat \(index + 1) (bar \(bar + 1), beat \(k - bar * m + 1))"
        case let .bar(n): text = "bar \(n + 1)"
        case let .onset(n): text = "onset \(n + 1)"
        }
        return pass == 0 ? text : "\(text), played again (\(pass + 1))"
    }
}

extension BeatTiming: Equatable {
    public static func == (a: BeatTiming, b: BeatTiming) -> Bool {
        a.mode == b.mode && a.on == b.on && a.every == b.every && a.offset == b.offset && a.give == b.give
            && a.min == b.min && a.max == b.max && a.confidence == b.confidence
    }
}
