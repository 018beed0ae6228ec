import Foundation
import Testing
@testable import Segue

@Suite("Transform3D follows CATransform3D")
struct Transform3DTests {
    @Test("rotation about y has CATransform3DMakeRotation's entries")
    func rotationAboutY() {
        let a = 0.3
        let t = Transform3D(rotationAngle: a, x: 0, y: 1, z: 0)
        #expect(close(t.m11, cos(a)) && close(t.m13, -sin(a)) && close(t.m31, sin(a)) && close(t.m33, cos(a)))
        #expect(close(t.m22, 1) && t.m12 == 0 && t.m21 == 0 && t.m14 == 0 && t.m44 == 1)
    }

    @Test("a quarter turn about z takes the x axis to the y axis (clockwise on a y-down screen)")
    func rotationAboutZ() {
        let p = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1).project(Point(x: 1, y: 0))
        #expect(close(p.x, 0) && close(p.y, 1))
    }

    @Test("concatenating applies the receiver first, as CATransform3DConcat")
    func concatOrder() {
        let t = Transform3D(translationX: 10, y: 0).concatenating(Transform3D(scaleX: 2, y: 2))
        #expect(t.project(Point(x: 0, y: 0)) == Point(x: 20, y: 0))
        let u = Transform3D(scaleX: 2, y: 2).concatenating(Transform3D(translationX: 10, y: 0))
        #expect(u.project(Point(x: 0, y: 0)) == Point(x: 10, y: 0))
    }

    @Test("rotated(by:) is CATransform3DRotate: the rotation happens before the perspective")
    func rotateThenPerspective() {
        // Hand-computed: R_y(30°) * P(m34 = 1/1000) has m14 = -sin 30° / 1000 and m34 = cos 30° / 1000.
        let t = Transform3D.perspective(m34: 1.0 / 1000).rotated(by: .pi / 6, x: 0, y: 1, z: 0)
        #expect(close(t.m14, -0.5 / 1000))
        #expect(close(t.m34, cos(Double.pi / 6) / 1000))
        #expect(close(t.m11, cos(Double.pi / 6)))
    }

    @Test("m34 divides by w = 1 + z m34")
    func perspectiveDivide() {
        // (100, 0, 0) turned -90° about y comes toward the viewer to z = 100, so w = 1.1.
        let t = Transform3D.perspective(m34: 1.0 / 1000).rotated(by: -.pi / 2, x: 0, y: 1, z: 0)
        let h = t.apply(x: 100, y: 20)
        #expect(close(h.x, 0, 1e-12) && close(h.y, 20) && close(h.w, 1.1))
        #expect(close(t.project(Point(x: 100, y: 20)).y, 20 / 1.1))
    }

    @Test("rotation about a zero axis is the identity")
    func zeroAxis() {
        #expect(Transform3D(rotationAngle: 1, x: 0, y: 0, z: 0) == .identity)
    }
}

@Suite("Layer geometry follows CALayer")
struct LayerGeometryTests {
    func corners(of root: Layer, scale: Double = 1) -> [[Point]] { root.drawList(scale: scale).map(\.corners) }

    @Test("position places the anchor point; bounds origin shifts sublayers")
    func anchorAndPosition() {
        var layer = Layer(bounds: Rect(x: 0, y: 0, width: 100, height: 50), position: Point(x: 200, y: 100))
        layer.anchorPoint = Point(x: 0, y: 0.5)
        layer.backgroundColor = .white
        let root = Layer.root(Rect(x: 0, y: 0, width: 400, height: 400), [layer])
        #expect(corners(of: root) == [[Point(x: 200, y: 75), Point(x: 300, y: 75), Point(x: 300, y: 125), Point(x: 200, y: 125)]])

        var scroll = Layer(frame: Rect(x: 0, y: 0, width: 400, height: 400))
        scroll.bounds.origin = Point(x: 30, y: 0)
        scroll.sublayers = [layer]
        #expect(corners(of: .root(Rect(x: 0, y: 0, width: 400, height: 400), [scroll]))[0][0] == Point(x: 170, y: 75))
    }

    @Test("the scale maps points to pixels")
    func scale() {
        var layer = Layer(frame: Rect(x: 10, y: 20, width: 30, height: 40))
        layer.backgroundColor = .white
        #expect(corners(of: .root(Rect(x: 0, y: 0, width: 100, height: 100), [layer]), scale: 3)[0][2] == Point(x: 120, y: 180))
    }

    @Test("a transform turns the layer about its anchor point")
    func transformAboutAnchor() {
        var layer = Layer(frame: Rect(x: 0, y: 0, width: 100, height: 100), anchorPoint: Point(x: 1, y: 1))
        layer.transform = Transform3D(rotationAngle: .pi, x: 0, y: 0, z: 1)
        layer.backgroundColor = .white
        let c = corners(of: .root(Rect(x: 0, y: 0, width: 300, height: 300), [layer]))[0]
        // Turned half a turn about its bottom right corner (100, 100): the top left lands at (200, 200).
        #expect(close(c[0].x, 200) && close(c[0].y, 200) && close(c[2].x, 100) && close(c[2].y, 100))
    }

    @Test("sublayerTransform acts about the superlayer's anchor point")
    func sublayerTransform() {
        var parent = Layer(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        parent.sublayerTransform = Transform3D(scaleX: 0.5, y: 0.5)
        var child = Layer(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        child.backgroundColor = .white
        parent.sublayers = [child]
        #expect(corners(of: .root(parent.frame, [parent]))[0] == [Point(x: 50, y: 50), Point(x: 150, y: 50), Point(x: 150, y: 150), Point(x: 50, y: 150)])
    }

    @Test("setAnchorPoint moves the anchor without moving the layer")
    func setAnchorPoint() {
        var layer = Layer(frame: Rect(x: 40, y: 30, width: 100, height: 60))
        layer.setAnchorPoint(Point(x: 0, y: 0.5))
        #expect(layer.position == Point(x: 40, y: 60))
        #expect(layer.frame == Rect(x: 40, y: 30, width: 100, height: 60))
    }

    @Test("a flat superlayer flattens its sublayers; a 3D one keeps their depth")
    func flattening() {
        var child = Layer(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        child.transform = Transform3D(rotationAngle: .pi / 4, x: 0, y: 1, z: 0)
        child.backgroundColor = .white
        var group = Layer(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        group.sublayers = [child]
        group.transform = Transform3D.perspective(m34: -1.0 / 200)

        // Flat: the child's z is dropped before the group's perspective, so the group's m34 has no effect.
        let flat = corners(of: .root(group.frame, [group]))[0]
        group.preserves3D = true
        let deep = corners(of: .root(group.frame, [group]))[0]
        let x = 50 * cos(Double.pi / 4)
        #expect(close(flat[1].x, 50 + x) && close(flat[1].y, 0))
        // In 3D the right edge is at z = -x (turned away), so w = 1 + x / 200 and it shrinks toward the center.
        let w = 1 + x / 200
        #expect(close(deep[1].x, 50 + x / w) && close(deep[1].y, 50 - 50 / w))
    }

    @Test("inside a 3D group, nearer layers draw after farther ones whatever their order")
    func depthOrder() {
        var near = Layer(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        near.zPosition = 5
        near.name = "near"
        near.backgroundColor = .white
        var far = near
        far.zPosition = -5
        far.name = "far"
        var group = Layer(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        group.preserves3D = true
        group.sublayerTransform = Transform3D(rotationAngle: .pi, x: 0, y: 1, z: 0) // turn the group round: near becomes far
        group.sublayers = [far, near]
        #expect(group.drawList(scale: 1).map(\.name) == ["near", "far"])
    }

    @Test("inside a 3D group, a quad in front of a long tilted one draws after it, though its center is farther")
    func depthOrderByPlanes() {
        var long = Layer(bounds: Rect(x: 0, y: 0, width: 10, height: 1000), position: .zero)
        long.transform = Transform3D(rotationAngle: 80 * .pi / 180, x: 1, y: 0, z: 0) // z = 5.67 y: the top is far
        long.backgroundColor = .white
        long.name = "long"
        var small = Layer(bounds: Rect(x: 0, y: 0, width: 4, height: 4), position: Point(x: 0, y: -80))
        small.zPosition = -100 // in front of the long quad there (z = -454), behind its center (z = 0)
        small.backgroundColor = .white
        small.name = "small"
        var group = Layer(bounds: Rect(x: -50, y: -100, width: 100, height: 200), position: Point(x: 50, y: 100))
        group.preserves3D = true
        group.sublayers = [small, long]
        #expect(Layer.root(Rect(x: 0, y: 0, width: 100, height: 200), [group]).drawList(scale: 1).map(\.name) == ["long", "small"])
    }

    @Test("a one-sided layer seen from the back is not drawn")
    func backFaceCulling() {
        var layer = Layer(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        layer.backgroundColor = .white
        layer.transform = Transform3D(rotationAngle: .pi, x: 0, y: 1, z: 0)
        #expect(Layer.root(layer.frame, [layer]).drawList(scale: 1).count == 1)
        layer.isDoubleSided = false
        #expect(Layer.root(layer.frame, [layer]).drawList(scale: 1).isEmpty)
    }
}
