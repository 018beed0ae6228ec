/// Reveal: the outgoing page slides away, uncovering the incoming one, which stays still, as
/// FFmpeg's xfade `revealleft`, `revealright`, `revealup` and `revealdown` do; at sub-pixel positions.
public struct Reveal: PageTransition {
    public static let name = "reveal"
    public static let summary = "The last image slides away, uncovering the next (FFmpeg xfade revealleft, revealright, revealup, revealdown)."
    public static let family = TransitionFamily.pages
    public static let source = "FFmpeg xfade revealleft, revealright, revealup, revealdown"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the last image moves: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress >= 1 { return .root(bounds, [to]) }
        let (dx, dy) = values[Self.direction].offset(bounds)
        var from = from, to = to
        to.setFrame(bounds)
        from.setFrame(bounds.offsetBy(dx: dx * max(progress, 0), dy: dy * max(progress, 0)))
        return .root(bounds, [to, from])
    }
}
