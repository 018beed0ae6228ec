/// Slide: the outgoing page slides out as the incoming one slides in behind it, edge to
/// edge, as FFmpeg's xfade `slideleft`, `slideright`, `slideup` and `slidedown` do.
public struct Slide: PageTransition {
    public typealias Direction = Segue.Direction

    public static let name = "slide"
    public static let summary = "The images slide across edge to edge (FFmpeg xfade slideleft, slideright, slideup, slidedown)."
    public static let family = TransitionFamily.pages
    public static let source = "FFmpeg xfade slideleft, slideright, slideup, slidedown"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the pages move: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        let (dx, dy) = values[Self.direction].offset(bounds)
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
