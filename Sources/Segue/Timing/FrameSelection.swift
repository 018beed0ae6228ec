import Foundation

/// A set of frame indices, written as `0,10,20-25`.
public struct FrameSelection: Equatable, Sendable, CustomStringConvertible {
    public var ranges: [ClosedRange<Int>]

    public init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// Parses a comma-separated list of indices and inclusive ranges; nil when malformed.
    public init?(parsing text: String) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), low >= 0,
                  let high = bounds.count == 2 ? Int(bounds[1]) : low, high >= low else { return nil }
            ranges.append(low...high)
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
    }

    /// The selected indices below `count`, increasing, each once.
    public func indices(below count: Int) -> [Int] {
        Array(Set(ranges.flatMap { $0.clamped(to: 0...max(0, count - 1)) }.filter { $0 < count })).sorted()
    }

    /// The largest index asked for.
    public var maximum: Int { ranges.map(\.upperBound).max() ?? 0 }

    public var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }
}
