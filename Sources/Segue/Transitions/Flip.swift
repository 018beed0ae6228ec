import Foundation

/// Flip (Remotion's `flip()` presentation): the page turns over like a card, half a turn
/// about its vertical or horizontal axis through its center, and the next page is on its
/// back. The outgoing page turns from 0 to 180°, the incoming one from -180° to 0 (the other
/// way round for `backward`), both seen through a perspective of `perspective` points
/// (m34 = -1 / perspective, as CSS's `perspective` on their container) with back faces
/// hidden, so one shows until the turn is half done and the other after.
public struct Flip: PageTransition {
    public enum Axis: String, CaseIterable, Sendable {
        /// About the vertical axis (CSS rotateY: Remotion's from-left and from-right).
        case vertical
        /// About the horizontal axis (CSS rotateX: from-bottom and from-top).
        case horizontal
    }

    public enum Direction: String, CaseIterable, Sendable {
        /// Remotion's from-left (vertical axis) or from-bottom (horizontal axis).
        case forward
        /// Remotion's from-right or from-top.
        case backward
    }

    public static let name = "flip"
    public static let summary = "The page turns over like a card about its vertical or horizontal axis, the next page on its back (Remotion's flip())."
    public static let family = TransitionFamily.pages
    public static let source = "Remotion's flip()"
    public static let axis = Parameter.choice("axis", default: Axis.vertical, "vertical: the card turns about its vertical axis; horizontal: about its horizontal axis.")
    public static let direction = Parameter.choice("direction", default: Direction.forward, "forward or backward: which way the card turns.")
    /// Remotion's default perspective, 1000 px, in points as the cubes use.
    public static let perspective = Parameter.number("perspective", default: 1000, in: 100...100_000, "Distance of the eye in points; m34 = -1 / perspective.")
    public static let parameters = [axis.erased, direction.erased, perspective.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The turn of the outgoing and the incoming page at progress `p`, in degrees.
    public func angles(_ p: Double) -> (from: Double, to: Double) {
        let sign: Double = values[Self.direction] == .forward ? 1 : -1
        return (sign * 180 * p, sign * (-180 + 180 * p))
    }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [from]) }
        if progress >= 1 { return .root(bounds, [to]) }
        let (fromAngle, toAngle) = angles(progress)
        let vertical = values[Self.axis] == .vertical
        func turned(_ page: Layer, _ degrees: Double) -> Layer {
            var page = page
            page.setFrame(bounds)
            page.transform = Transform3D(rotationAngle: degrees * Double.pi / 180, x: vertical ? 0 : 1, y: vertical ? 1 : 0, z: 0)
            page.isDoubleSided = false
            return page
        }
        var stage = Layer(frame: bounds)
        stage.sublayerTransform = .perspective(m34: -1 / values[Self.perspective])
        stage.sublayers = [turned(from, fromAngle), turned(to, toAngle)]
        stage.name = "stage"
        return .root(bounds, [stage])
    }
}
