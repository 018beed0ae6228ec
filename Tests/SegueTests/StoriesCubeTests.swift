import Foundation
import Testing
@testable import Segue

@Suite("stories-cube follows seed 001")
struct StoriesCubeTests {
    let bounds = Rect(x: 0, y: 0, width: 360, height: 640)

    /// Where a corner of a page lands, computed straight from the seed: the page turns by
    /// `angle` about y around its anchor on the shared edge, then m34 = 1 / perspective
    /// divides by w = 1 + z / perspective. `dx` is the corner's x from the anchor (±width).
    func seedCorner(boundary: Double, angle: Double, dx: Double, dy: Double, perspective: Double = 1000) -> Point {
        let x = dx * cos(angle)
        let z = -dx * sin(angle)
        let w = 1 + z / perspective
        return Point(x: boundary + x / w, y: bounds.height / 2 + dy / w)
    }

    func quads(progress: Double, perspective: Double = 1000) -> [String: [Point]] {
        let (from, to) = colorPages(bounds)
        let scene = StoriesCube().with(StoriesCube.perspective, perspective).scene(from: from, to: to, progress: progress, bounds: bounds)
        return Dictionary(uniqueKeysWithValues: scene.drawList(scale: 1).map { ($0.name!, $0.corners) })
    }

    @Test("face corners match the seed's formulas", arguments: [0.1, 0.25, 0.5, 0.75, 0.9])
    func corners(progress: Double) throws {
        for perspective in [1000.0, 400] {
            let q = quads(progress: progress, perspective: perspective)
            let left = try #require(q["from"]), right = try #require(q["to"])
            let w = bounds.width, h = bounds.height
            let boundary = (1 - progress) * w
            // The left page: anchor (1, 0.5), angle 90° x percent.
            let leftAngle = Double.pi / 2 * progress
            let expectedLeft = [seedCorner(boundary: boundary, angle: leftAngle, dx: -w, dy: -h / 2, perspective: perspective),
                                seedCorner(boundary: boundary, angle: leftAngle, dx: 0, dy: -h / 2, perspective: perspective),
                                seedCorner(boundary: boundary, angle: leftAngle, dx: 0, dy: h / 2, perspective: perspective),
                                seedCorner(boundary: boundary, angle: leftAngle, dx: -w, dy: h / 2, perspective: perspective)]
            // The right page: anchor (0, 0.5), angle -90° x (1 - percent).
            let rightAngle = -Double.pi / 2 * (1 - progress)
            let expectedRight = [seedCorner(boundary: boundary, angle: rightAngle, dx: 0, dy: -h / 2, perspective: perspective),
                                 seedCorner(boundary: boundary, angle: rightAngle, dx: w, dy: -h / 2, perspective: perspective),
                                 seedCorner(boundary: boundary, angle: rightAngle, dx: w, dy: h / 2, perspective: perspective),
                                 seedCorner(boundary: boundary, angle: rightAngle, dx: 0, dy: h / 2, perspective: perspective)]
            for (got, want) in zip(left + right, expectedLeft + expectedRight) {
                #expect(close(got.x, want.x, 1e-9) && close(got.y, want.y, 1e-9), "\(got) != \(want) at \(progress)")
            }
        }
    }

    @Test("the shared edge stays on the page boundary")
    func sharedEdge() throws {
        for progress in stride(from: 0.05, to: 1, by: 0.05) {
            let q = quads(progress: progress)
            let left = try #require(q["from"]), right = try #require(q["to"])
            let boundary = (1 - progress) * bounds.width
            for p in [left[1], left[2], right[0], right[3]] { #expect(close(p.x, boundary, 1e-9)) }
            #expect(close(left[1].y, 0) && close(left[2].y, bounds.height) && close(right[0].y, 0) && close(right[3].y, bounds.height))
        }
    }

    @Test("the far edges recede: smaller than the page, the more the page is turned")
    func farEdgesShrink() throws {
        let q = quads(progress: 0.3)
        let left = try #require(q["from"]), right = try #require(q["to"])
        let leftHeight = left[3].y - left[0].y, rightHeight = right[2].y - right[1].y
        #expect(leftHeight < bounds.height && rightHeight < bounds.height)
        #expect(rightHeight < leftHeight) // at 0.3 the incoming page is turned more (63° against 27°)
    }

    @Test("progress 0 shows only the outgoing page and 1 only the incoming one, unturned")
    func ends() {
        let start = quads(progress: 0), end = quads(progress: 1)
        #expect(Array(start.keys) == ["from"] && Array(end.keys) == ["to"])
        let full = Layer.corners(of: bounds)
        #expect(start["from"] == full && end["to"] == full)
    }
}
