import Foundation

/// The curve of a rounded rectangle's corners, as CALayer.cornerCurve.
public enum CornerCurve: String, Codable, CaseIterable, Sendable {
    /// A quarter circle of the corner radius.
    case circular
    /// Apple's continuous corner: it leaves the straight edge 1.528665 radii from the corner
    /// and bends gradually, with no jump in curvature where it meets the edge.
    case continuous
}

/// A rectangle with rounded corners, and how much of a pixel around a point it covers.
public struct RoundedRect: Equatable, Sendable {
    public var rect: Rect
    public var cornerRadius: Double
    public var cornerCurve: CornerCurve

    public init(rect: Rect, cornerRadius: Double = 0, cornerCurve: CornerCurve = .continuous) {
        self.rect = rect
        self.cornerRadius = cornerRadius
        self.cornerCurve = cornerCurve
    }

    /// How far the corner reaches along each edge, per unit of radius.
    static func reach(_ curve: CornerCurve) -> Double { curve == .continuous ? 1.52866483 : 1 }

    /// The radius actually drawn: no corner may reach past the middle of a side.
    public var effectiveRadius: Double {
        let limit = min(rect.width, rect.height) / 2 / RoundedRect.reach(cornerCurve)
        return max(0, min(cornerRadius, limit))
    }

    /// The top-left corner's outline for radius 1, from its end on the top edge to its end on
    /// the left edge, in (distance from the left edge, distance from the top edge).
    static let circularOutline: [SIMD2<Double>] = (0...32).map { i in
        let a = Double.pi / 2 * Double(i) / 32
        return SIMD2(1 - sin(a), 1 - cos(a))
    }

    /// Apple's continuous corner for radius 1, as UIBezierPath(roundedRect:cornerRadius:)
    /// draws it since iOS 7: three cubic Béziers joined by two short lines.
    static let continuousOutline: [SIMD2<Double>] = {
        func cubic(_ p0: SIMD2<Double>, _ p1: SIMD2<Double>, _ p2: SIMD2<Double>, _ p3: SIMD2<Double>) -> [SIMD2<Double>] {
            (1...16).map { i in
                let t = Double(i) / 16, u = 1 - t
                return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3
            }
        }
        let start = SIMD2(1.52866483, 0.0)
        var points = [start]
        points += cubic(start, SIMD2(1.08849296, 0), SIMD2(0.86840694, 0), SIMD2(0.66993427, 0.06549600))
        points.append(SIMD2(0.63149379, 0.07491139))
        points += cubic(points.last!, SIMD2(0.37282383, 0.16906013), SIMD2(0.16906013, 0.37282383), SIMD2(0.07491139, 0.63149379))
        points.append(SIMD2(0.06549600, 0.66993427))
        points += cubic(points.last!, SIMD2(0, 0.86840694), SIMD2(0, 1.08849296), SIMD2(0, 1.52866483))
        return points
    }()

    /// How far the outline lies in from the left (or right) side at `distance` from the top
    /// (or bottom) side, `distance` at least 0: along the corner outline `signedDistance`
    /// measures against (a polyline), 0 past the corners.
    func inset(_ distance: Double) -> Double {
        let r = effectiveRadius
        guard r > 0, distance < r * RoundedRect.reach(cornerCurve) else { return 0 }
        let t = max(distance, 0) / r
        let outline = cornerCurve == .continuous ? RoundedRect.continuousOutline : RoundedRect.circularOutline
        // The outline runs from the top side (y = 0) to the left one, its y rising throughout.
        for i in 0..<(outline.count - 1) where outline[i + 1].y >= t {
            let a = outline[i], b = outline[i + 1]
            let f = b.y > a.y ? (t - a.y) / (b.y - a.y) : 0
            return (a.x + f * (b.x - a.x)) * r
        }
        return 0
    }

    /// The signed distance from a point to the outline, positive inside, in the rectangle's units.
    public func signedDistance(_ p: Point) -> Double {
        // Distances from the nearest vertical and horizontal edges, and which corner is near.
        let left = p.x - rect.minX, right = rect.maxX - p.x, top = p.y - rect.minY, bottom = rect.maxY - p.y
        let dx = min(left, right), dy = min(top, bottom)
        let r = effectiveRadius
        let reach = r * RoundedRect.reach(cornerCurve)
        guard r > 0, dx < reach, dy < reach else { return min(dx, dy) }
        // In a corner's square, or beside it outside the rectangle: measure against that
        // corner's outline, folded to the top left. (Beside it, the distance to the straight
        // side's line would let a faint strip of the side's line show past the corner.)
        let q = SIMD2(dx / r, dy / r)
        let outline = cornerCurve == .continuous ? RoundedRect.continuousOutline : RoundedRect.circularOutline
        var best = Double.infinity, inside = true
        for i in 0..<(outline.count - 1) {
            let a = outline[i], d = outline[i + 1] - a
            let lengthSquared = (d * d).sum()
            let t = lengthSquared > 0 ? min(max(((q - a) * d).sum() / lengthSquared, 0), 1) : 0
            let e = q - (a + t * d)
            let distance = (e * e).sum()
            if distance < best {
                best = distance
                // The outline runs from the top edge to the left edge; inside lies to its left-hand turn.
                inside = d.x * (q.y - a.y) - d.y * (q.x - a.x) <= 0
            }
        }
        return (inside ? 1 : -1) * best.squareRoot() * r
    }
}
