import Foundation
import Testing
@testable import Segue

@Suite("cube-fold follows seed 004")
struct CubeFoldTests {
    let bounds = Rect(x: 0, y: 0, width: 360, height: 640)

    @Test("the camera is somePerspectiveTransform: m34 = -1/500, π/8 about x then y, scale 0.7")
    func camera() {
        let c = CubeFold().camera()
        // Built by hand in the seed's order: each CATransform3DRotate/Scale is applied first.
        let p = Transform3D.perspective(m34: -1.0 / 500)
        let expected = Transform3D(scaleX: 0.7, y: 0.7, z: 0.7)
            .concatenating(Transform3D(rotationAngle: .pi / 8, x: 0, y: 1, z: 0))
            .concatenating(Transform3D(rotationAngle: .pi / 8, x: 1, y: 0, z: 0))
            .concatenating(p)
        for (a, b) in zip(Mirror(reflecting: c).children.map { $0.value as! Double }, Mirror(reflecting: expected).children.map { $0.value as! Double }) {
            #expect(close(a, b, 1e-12))
        }
        #expect(close(c.m34, -1.0 / 500 * cos(Double.pi / 8) * cos(Double.pi / 8) * 0.7, 1e-12))
    }

    /// The 3D corners of each face of the closed cube in the container's space (before the camera).
    func closedCorners() -> [String: [SIMD3<Double>]] {
        let s = 120.0
        var result: [String: [SIMD3<Double>]] = [:]
        for number in 1...6 {
            let (anchor, position) = CubeFold.anchorAndPosition(number, side: s)
            var face = Layer(bounds: Rect(x: 0, y: 0, width: s, height: s), position: position)
            face.anchorPoint = anchor
            face.transform = CubeFold.sideTransform(number, side: s, amount: 1)
            result["face \(number)"] = Layer.corners(of: face.bounds).map {
                let h = face.placement.apply(x: $0.x, y: $0.y)
                return SIMD3((h.x / h.w * 1e6).rounded() / 1e6, (h.y / h.w * 1e6).rounded() / 1e6, (h.z / h.w * 1e6).rounded() / 1e6)
            }
        }
        return result
    }

    @Test("folded by the seed's anchors, positions and transforms, the faces close into a cube of side 120")
    func closesIntoACube() {
        let corners = closedCorners()
        let all = Set(corners.values.flatMap { $0 })
        // A closed cube: exactly its 8 vertices, x and y in ±60, z in 0...120.
        #expect(all.count == 8)
        #expect(all == Set([-60.0, 60].flatMap { x in [-60.0, 60].flatMap { y in [0.0, 120].map { SIMD3(x, y, $0) } } }))
        // Face 2 at the back (z = 0), face 4 at the front (z = 120), the others joining them.
        #expect(corners["face 2"]!.allSatisfy { $0.z == 0 } && corners["face 4"]!.allSatisfy { $0.z == 120 })
        #expect(corners["face 1"]!.allSatisfy { $0.x == -60 } && corners["face 3"]!.allSatisfy { $0.x == 60 })
        #expect(corners["face 5"]!.allSatisfy { $0.y == -60 } && corners["face 6"]!.allSatisfy { $0.y == 60 })
    }

    @Test("flat, the faces lie in the seed's cross with face 4 over face 2")
    func flatCross() {
        let flat = CubeFold().screen(0, pages: EndCheck().pages(), bounds: bounds).sublayers[0]
        let frames = Dictionary(uniqueKeysWithValues: flat.sublayers.map { ($0.name!, $0.frame) })
        #expect(frames["face 1"] == Rect(x: -240, y: -80, width: 160, height: 160))
        #expect(frames["face 2"] == Rect(x: -80, y: -80, width: 160, height: 160))
        #expect(frames["face 3"] == Rect(x: 80, y: -80, width: 160, height: 160))
        #expect(frames["face 5"] == Rect(x: -80, y: -240, width: 160, height: 160))
        #expect(frames["face 6"] == Rect(x: -80, y: 80, width: 160, height: 160))
        let order = Layer.root(bounds, [flat]).drawList(scale: 1).compactMap(\.name)
        #expect(order.firstIndex(of: "face 4")! > order.firstIndex(of: "face 2")!)
    }

    @Test("closed, only the faces whose outside faces the viewer are drawn: three from the seed's camera")
    func culling() {
        let pages = EndCheck().pages()
        let drawn = Set(CubeFold().screen(1, pages: pages, bounds: bounds).drawList(scale: 1).compactMap(\.name))
        // The camera turns the bottom (+y) and left (-x) toward the viewer: the front, bottom and left faces show.
        #expect(drawn == ["face 4", "face 6", "face 1"])
        // Half way round the orbit the back face (2) shows instead of the front.
        let half = CubeFold().scene(step: 1, progress: 0.5, pages: pages, bounds: bounds)
        let behind = Set(half.drawList(scale: 1).compactMap(\.name))
        #expect(behind.contains("face 2") && !behind.contains("face 4") && behind.count == 3)
    }

    @Test("every step starts and ends on its screens, pixel for pixel")
    func ends() {
        EndCheck().check(CubeFold())
    }

    @Test("fold and unfold take the preset's duration, the orbit its own")
    func durations() {
        let cube = CubeFold().with(CubeFold.orbitDuration, 2.5)
        #expect(cube.duration(step: 0, base: 1) == 1 && cube.duration(step: 1, base: 1) == 2.5 && cube.duration(step: 2, base: 1) == 1)
    }
}
