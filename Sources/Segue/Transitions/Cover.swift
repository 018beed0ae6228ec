/// Cover: the incoming page slides in over the outgoing one, which stays still, as FFmpeg's
/// xfade `coverleft`, `coverright`, `coverup` and `coverdown` do; at sub-pixel positions.
public struct Cover: PageTransition {
    public static let name = "cover"
    public static let summary = "The next image slides in over the last (FFmpeg xfade coverleft, coverright, coverup, coverdown)."
    public static let family = TransitionFamily.pages
    public static let source = "FFmpeg xfade coverleft, coverright, coverup, coverdown"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the next image moves: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [from]) }
        let (dx, dy) = values[Self.direction].offset(bounds)
        var from = from, to = to
        from.setFrame(bounds)
        to.setFrame(bounds.offsetBy(dx: -dx * (1 - min(progress, 1)), dy: -dy * (1 - min(progress, 1))))
        return .root(bounds, [from, to])
    }
}

extension Direction {
    /// A whole screen's move toward the direction.
    func offset(_ bounds: Rect) -> (dx: Double, dy: Double) {
        switch self {
        case .left: (-bounds.width, 0)
        case .right: (bounds.width, 0)
        case .up: (0, -bounds.height)
        case .down: (0, bounds.height)
        }
    }
}
