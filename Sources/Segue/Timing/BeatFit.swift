/// A timeline's cuts moved onto the points of a music's grid (`timing: beats`).
///
/// The cuts are placed in order, each from where the one before it ended: a cut's anchor is
/// the time its next screen's first frame is shown (a hard cut) or its transition's middle,
/// and it moves to the grid point nearest where its screen's hold would put it, among those
/// that keep the hold within the screen's bounds. A screen that may not change (a clip that
/// is not to be trimmed) keeps its hold; one that may only shrink (a clip that may be)
/// takes the latest point within it. Where no point is within the bounds, the cut stays where
/// its hold puts it. The end of the last hold is placed the same way, so the video ends on the
/// grid too. Each step is a binary search: a story of many screens costs a few steps a cut.
public struct BeatFit: Sendable {
    /// How one screen's hold may change.
    public struct Bounds: Equatable, Sendable {
        /// The hold asked for, and the shortest and longest it may become.
        public var hold, min, max: Double
        public var change: Change

        public enum Change: Equatable, Sendable {
            /// Any hold within `min...max`.
            case free
            /// Kept as it is.
            case fixed
            /// Shorter within `min`, never longer.
            case shorter
        }

        public init(hold: Double, min: Double, max: Double, change: Change = .free) {
            self.hold = hold
            self.min = Swift.min(min, hold)
            self.max = Swift.max(max, hold)
            self.change = change
        }
    }

    /// Where one cut (or the end) went.
    public struct Placed: Equatable, Sendable {
        /// Where the holds asked for put its anchor, and where it is now (seconds).
        public var asked, placed: Double
        /// The grid point it is on (an index into the points); nil when it stayed off the grid.
        public var point: Int?
        /// Why it is off the grid, when it is.
        public var why: String?

        public var moved: Double { placed - asked }
    }

    /// The fitted holds, one per screen.
    public let holds: [Double]
    /// Each cut's placing, then the end's.
    public let placed: [Placed]

    /// Fits screens of `bounds` joined by transitions of `durations` (a hard cut's is 0) to
    /// `points`, sorted seconds of the video's time.
    public init(bounds: [Bounds], durations: [Double], points: [Double]) {
        precondition(durations.count == bounds.count - 1)
        var holds: [Double] = [], placed: [Placed] = []
        var start = 0.0, asked = 0.0
        let last = points.last ?? -.infinity
        for (index, screen) in bounds.enumerated() {
            let half = index < durations.count ? durations[index] / 2 : 0
            let want = start + screen.hold + half
            asked += screen.hold + half
            var place = Placed(asked: asked, placed: want, point: nil, why: nil)
            switch screen.change {
            case .fixed:
                place.why = "a clip's own length (timing.fit: cut lets it be trimmed)"
            case .free, .shorter:
                let low = start + screen.min + half
                let high = screen.change == .shorter ? want : start + screen.max + half
                if let point = BeatFit.nearest(to: want, in: points, within: low...high, latest: screen.change == .shorter) {
                    place.placed = points[point]
                    place.point = point
                } else {
                    place.why = want > last ? "past the music's last beat"
                        : String(format: "no grid point keeps its hold within %.2f...%.2f s", screen.min, screen.change == .shorter ? screen.hold : screen.max)
                }
            }
            holds.append(place.placed - half - start)
            placed.append(place)
            start = place.placed + half
            asked += half
        }
        self.holds = holds
        self.placed = placed
    }

    /// The point in `range` nearest `time` (with `latest`, the last one in it), by its index.
    static func nearest(to time: Double, in points: [Double], within range: ClosedRange<Double>, latest: Bool) -> Int? {
        // The first point after the range's end, by binary search; the candidates are just before it.
        var low = 0, high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle] <= range.upperBound { low = middle + 1 } else { high = middle }
        }
        let end = low
        guard end > 0, points[end - 1] >= range.lowerBound else { return nil }
        if latest { return end - 1 }
        // The last point at or before `time`, and the first after it, within the range.
        var below = 0, above = end
        while below < above {
            let middle = (below + above) / 2
            if points[middle] <= time { below = middle + 1 } else { above = middle }
        }
        let candidates = [below - 1, below].filter { $0 >= 0 && $0 < end && range.contains(points[$0]) }
        return candidates.min { abs(points[$0] - time) < abs(points[$1] - time) }
    }
}
