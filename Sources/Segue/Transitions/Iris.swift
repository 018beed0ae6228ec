import Foundation

/// Iris (FFmpeg xfade's `circleopen`, with a hard, anti-aliased edge and a settable center):
/// the next page is revealed inside a circle that grows from `center` until it covers the
/// whole screen, its radius progress × the distance from the center to the farthest corner.
public struct Iris: PageTransition {
    public static let name = "iris"
    public static let summary = "The next image is revealed inside a circle growing from a point of the screen (FFmpeg xfade circleopen)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade circleopen"
    public static let center = Parameter.unitPoint("center", default: Point(x: 0.5, y: 0.5),
                                                   "Where the circle grows from, [x, y] in 0...1 of the screen: x from the left, y from the top (gl:circle counts y from the bottom).")
    public static let parameters = [center.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The circle's center and radius in `bounds` at progress `p`.
    public func circle(_ p: Double, bounds: Rect) -> (center: Point, radius: Double) {
        let unit = values[Self.center]
        let c = Point(x: bounds.minX + unit.x * bounds.width, y: bounds.minY + unit.y * bounds.height)
        let farthest = [(bounds.minX, bounds.minY), (bounds.maxX, bounds.minY), (bounds.minX, bounds.maxY), (bounds.maxX, bounds.maxY)]
            .map { ((c.x - $0.0) * (c.x - $0.0) + (c.y - $0.1) * (c.y - $0.1)).squareRoot() }.max()!
        return (c, max(0, p) * farthest)
    }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [from]) }
        if progress >= 1 { return .root(bounds, [to]) }
        let (c, r) = circle(progress, bounds: bounds)
        var to = to
        to.setFrame(bounds)
        // The mask is in the page's bounds space, which is the screen's here.
        to.mask = RoundedRect(rect: Rect(x: c.x - r - bounds.minX, y: c.y - r - bounds.minY, width: 2 * r, height: 2 * r),
                              cornerRadius: r, cornerCurve: .circular)
        return .root(bounds, [from, to])
    }
}
