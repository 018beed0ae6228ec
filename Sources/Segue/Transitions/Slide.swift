/// Slide: the outgoing page slides out as the incoming one slides in behind it, edge to
/// edge, as FFmpeg's xfade `slideleft`, `slideright`, `slideup` and `slidedown` do.
public struct Slide: PageTransition {
    public enum Direction: String, Codable, CaseIterable, Sendable {
        case left, right, up, down
    }

    public struct Parameters: Codable, Equatable, Sendable {
        /// Where the pages move. Default left (the next page enters from the right).
        public var direction: Direction = .left

        public init(direction: Direction = .left) { self.direction = direction }

        init(reading r: inout ConfigReader) throws {
            direction = Direction(rawValue: try r.choice("direction", default: "left", among: Direction.allCases.map(\.rawValue),
                                                         "Where the pages move: left, right, up or down."))!
        }
    }

    public var parameters: Parameters

    public init(_ parameters: Parameters = Parameters()) { self.parameters = parameters }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        let (dx, dy): (Double, Double)
        switch parameters.direction {
        case .left: (dx, dy) = (-bounds.width, 0)
        case .right: (dx, dy) = (bounds.width, 0)
        case .up: (dx, dy) = (0, -bounds.height)
        case .down: (dx, dy) = (0, bounds.height)
        }
        var from = from, to = to
        from.setFrame(bounds.offsetBy(dx: dx * progress, dy: dy * progress))
        to.setFrame(bounds.offsetBy(dx: dx * (progress - 1), dy: dy * (progress - 1)))
        let visible = [from, to].filter { $0.frame.intersects(bounds) }
        return .root(bounds, visible)
    }
}

extension Rect {
    /// The rectangle moved by (dx, dy).
    public func offsetBy(dx: Double, dy: Double) -> Rect { Rect(x: minX + dx, y: minY + dy, width: width, height: height) }
}
