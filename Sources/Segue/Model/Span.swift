/// A stretch of a timeline: from `start` seconds to an end, or on to the end of what holds it
/// (a slide's time on screen, the video, a file). An overlay's time on screen, the part of a
/// voice's file heard, a clip's part and a sound's place are each one.
///
/// The end is kept as it was given, a time or a length, so that no sum or difference of the
/// two is ever rounded into it: a cue that ends at 1.5 s ends on the frame at 1.5 s.
public struct Span: Hashable, Sendable {
    public enum End: Hashable, Sendable {
        /// On to the end of what holds it.
        case open
        /// At this time, on the same timeline as `start`.
        case at(Double)
        /// This many seconds after `start`.
        case after(Double)
    }

    public var start: Double
    public var end: End

    public init(start: Double = 0, end: End = .open) {
        self.start = start
        self.end = end
    }

    /// From `start` for `length` seconds, or on to the end for nil.
    public init(start: Double, length: Double?) {
        self.init(start: start, end: length.map(End.after) ?? .open)
    }

    /// Where it ends; nil while open.
    public var endTime: Double? {
        switch end {
        case .open: nil
        case let .at(time): time
        case let .after(length): start + length
        }
    }

    /// How long it lasts; nil while open.
    public var length: Double? {
        switch end {
        case .open: nil
        case let .at(time): time - start
        case let .after(length): length
        }
    }

    public var isOpen: Bool { end == .open }
}
