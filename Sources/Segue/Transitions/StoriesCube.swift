import Foundation

/// Instagram Stories cube (seed 001): pages side by side in a paging scroll view; the two
/// visible pages turn about their shared edge, the left one from 0 to 90°, the right one
/// from -90° to 0, in proportion to the scroll offset, seen with m34 = 1 / perspective.
public struct StoriesCube: PageTransition {
    public static let name = "stories-cube"
    public static let summary = "The two visible pages turn about their shared edge like the faces of a cube (seed 001, Instagram Stories)."
    public static let family = TransitionFamily.pages
    public static let source = "seed 001, Instagram Stories"
    /// The seed's `transform.m34 = 1.0 / 1000`.
    public static let perspective = Parameter.number("perspective", default: 1000, in: 100...100_000,
                                                     "Distance of the eye from the pages, in points; m34 = 1 / perspective.")
    public static let parameters = [perspective.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// Progress p is the scroll view's contentOffset.x = p x width over the pages `from`
    /// (at x = 0) and `to` (at x = width), as the seed's scrollViewDidScroll sees it.
    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        let width = bounds.width
        let xOffset = progress * width
        var pages = [from, to]
        for i in pages.indices {
            pages[i].anchorPoint = Point(x: 0.5, y: 0.5)
            pages[i].setFrame(Rect(x: Double(i) * width, y: 0, width: width, height: bounds.height))
        }

        // 1: the visible pages, the furthest right first.
        let visibleRect = Rect(x: xOffset, y: 0, width: width, height: bounds.height)
        let visible = pages.indices.filter { pages[$0].frame.intersects(visibleRect) }
            .sorted { pages[$0].frame.minX > pages[$1].frame.minX }

        // 3, 4, 5: anchor points, the perspective, the end angles.
        let rightViewAnchorPoint = Point(x: 0, y: 0.5)
        let leftViewAnchorPoint = Point(x: 1, y: 0.5)
        let transform = Transform3D.perspective(m34: 1 / values[Self.perspective])
        let leftSideOriginalTransform = 90 * Double.pi / 180
        let rightSideCellOriginalTransform = -(90 * Double.pi / 180)

        if let right = visible.first, let left = visible.last {
            let page = (xOffset / width).truncatingRemainder(dividingBy: 1)
            let hasCompletedPaging = page == 0
            var rightAnimationPercentComplete = hasCompletedPaging ? 0 : 1 - page
            if xOffset < 0 { rightAnimationPercentComplete -= 1 }
            pages[right].transform = transform.rotated(by: rightSideCellOriginalTransform * rightAnimationPercentComplete, x: 0, y: 1, z: 0)
            pages[right].setAnchorPoint(rightViewAnchorPoint)

            if xOffset > 0 {
                let leftAnimationPercentComplete = page
                pages[left].transform = transform.rotated(by: leftSideOriginalTransform * leftAnimationPercentComplete, x: 0, y: 1, z: 0)
                pages[left].setAnchorPoint(leftViewAnchorPoint)
            }
        }

        // The scroll view: its bounds origin is the content offset.
        var scrollView = Layer(frame: bounds)
        scrollView.bounds.origin = Point(x: xOffset, y: 0)
        scrollView.sublayers = visible.sorted().map { pages[$0] }
        scrollView.name = "scrollView"
        return .root(bounds, [scrollView])
    }
}
