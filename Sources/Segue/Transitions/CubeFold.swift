import Foundation

/// Core Animation's six-face cube (seed 004, WWDC 2011 "Layers in Perspective"): a
/// flattened cross of six faces folds into a cube by the seed's per-face anchor points,
/// positions and quarter turns, seen through the seed's camera (a sublayerTransform with
/// m34 = -1/500, turned π/8 about x and y, scaled 0.7); the cube then orbits and unfolds.
///
/// Screens: the flat cross, the closed cube, the closed cube after its orbit, and the flat
/// cross again. Faces carry the inputs in order, cycled when there are fewer than six (the
/// first six are used). While the cube is open every face is two-sided, as in the seed; once
/// closed, a face is drawn only when its outside faces the viewer. The seed also sets face
/// 4's zPosition to the side width on top of its translation by the side width, which would
/// float it a side's width in front of the cube; here face 4 sits on the cube, at z = side.
public struct CubeFold: Transition {
    public static let name = "cube-fold"
    public static let summary = "Six faces fold from a flat cross into a cube, orbit and unfold, seen through Core Animation's sublayerTransform camera (seed 004, WWDC 2011 \"Layers in Perspective\")."
    public static let family = TransitionFamily.pages
    public static let source = "seed 004, WWDC 2011 \"Layers in Perspective\""
    public static let side = Parameter.number("side", default: 160, in: 10...2000, "Side of a face in points.")
    /// The seed's m34 = -1 / 500.
    public static let perspective = Parameter.number("perspective", default: 500, in: 100...100_000, "The camera's eye distance in points; m34 = -1 / perspective.")
    /// The seed's π/8.
    public static let tiltX = Parameter.number("tiltX", default: 22.5, in: -90...90, "The camera's turn about x, in degrees.")
    public static let tiltY = Parameter.number("tiltY", default: 22.5, in: -90...90, "The camera's turn about y, in degrees.")
    /// The seed's 0.7.
    public static let cameraScale = Parameter.number("cameraScale", default: 0.7, in: 0.1...10, "The camera's scale.")
    /// Folding and unfolding take `transition.duration`.
    public static let orbitDuration = Parameter.number("orbitDuration", default: 3, in: 0...600, "Seconds of the orbit.")
    public static let orbitYaw = Parameter.number("orbitYaw", default: 360, in: -3600...3600, "Degrees the cube turns about its vertical axis while orbiting.")
    public static let orbitPitch = Parameter.number("orbitPitch", default: 20, in: -90...90, "Degrees the cube tips at the middle of the orbit.")
    public static let parameters = [side.erased, perspective.erased, tiltX.erased, tiltY.erased, cameraScale.erased, orbitDuration.erased,
                                    orbitYaw.erased, orbitPitch.erased]
    public static let joinsTwoPages = false

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    // MARK: The seed's geometry

    /// `CATransform3D.transformFor3DCubeSide(number, zWidth:)`, with the fold angle scaled by
    /// `amount` (0 flat, 1 folded).
    static func sideTransform(_ number: Int, side: Double, amount: Double) -> Transform3D {
        let halfPi = Double.pi / 2 * amount
        switch number {
        case 1: return Transform3D(rotationAngle: halfPi, x: 0, y: 1, z: 0)
        case 3: return Transform3D(rotationAngle: -halfPi, x: 0, y: 1, z: 0)
        case 4: return Transform3D(translationX: 0, y: 0, z: side * amount)
        case 5: return Transform3D(rotationAngle: -halfPi, x: 1, y: 0, z: 0)
        case 6: return Transform3D(rotationAngle: halfPi, x: 1, y: 0, z: 0)
        default: return .identity
        }
    }

    /// `CGPoint.anchorPointAndPositionForCubeSideLayer(number:sideSize:)`.
    static func anchorAndPosition(_ number: Int, side: Double) -> (anchorPoint: Point, position: Point) {
        let half = side / 2
        switch number {
        case 1: return (Point(x: 1, y: 0.5), Point(x: -half, y: 0))
        case 3: return (Point(x: 0, y: 0.5), Point(x: half, y: 0))
        case 5: return (Point(x: 0.5, y: 1), Point(x: 0, y: -half))
        case 6: return (Point(x: 0.5, y: 0), Point(x: 0, y: half))
        default: return (Point(x: 0.5, y: 0.5), Point(x: 0, y: 0))
        }
    }

    /// `CATransform3D.somePerspectiveTransform()`, with the seed's constants as parameters.
    func camera() -> Transform3D {
        let scale = values[Self.cameraScale]
        return Transform3D.perspective(m34: -1 / values[Self.perspective])
            .rotated(by: values[Self.tiltX] * Double.pi / 180, x: 1, y: 0, z: 0)
            .rotated(by: values[Self.tiltY] * Double.pi / 180, x: 0, y: 1, z: 0)
            .scaled(x: scale, y: scale, z: scale)
    }

    /// The orbit at `t` (0...1) on top of the camera: turns about the cube's center (z = side / 2),
    /// as the seed's rotationFromDisplacement does for a closed cube.
    func orbit(_ t: Double) -> Transform3D {
        let yaw = values[Self.orbitYaw] * Double.pi / 180 * t
        let pitch = values[Self.orbitPitch] * Double.pi / 180 * sin(Double.pi * min(max(t, 0), 1))
        let half = values[Self.side] / 2
        return camera()
            .translated(x: 0, y: 0, z: half)
            .rotated(by: pitch, x: 1, y: 0, z: 0)
            .rotated(by: yaw, x: 0, y: 1, z: 0)
            .translated(x: 0, y: 0, z: -half)
    }

    // MARK: Screens and scenes

    /// The flat cross, the closed cube, the closed cube after its orbit, the flat cross again.
    public func screenCount(pages: Int) -> Int { 4 }

    /// The six faces, carrying the pages in order, cycled when there are fewer than six.
    func faces(_ pages: [Layer]) -> [Layer] {
        let side = values[Self.side]
        return (1...6).map { number -> Layer in
            let (anchor, position) = CubeFold.anchorAndPosition(number, side: side)
            var face = Layer(bounds: Rect(x: 0, y: 0, width: side, height: side), position: position)
            face.anchorPoint = anchor
            face.contents = pages.isEmpty ? nil : pages[(number - 1) % pages.count].contents
            face.contentsGravity = .fill
            face.name = "face \(number)"
            return face
        }
    }

    public func screen(_ index: Int, pages: [Layer], bounds: Rect) -> Layer {
        let (fold, orbit): (Double, Double) = [(0, 0), (1, 0), (1, 1), (0, 1)][index]
        return .root(bounds, [cube(faces(pages), fold: fold, orbit: orbit, bounds: bounds)])
    }

    public func scene(step: Int, progress: Double, pages: [Layer], bounds: Rect) -> Layer {
        let faces = faces(pages)
        let cubeLayer: Layer
        switch step {
        case 0: cubeLayer = cube(faces, fold: progress, orbit: 0, bounds: bounds)
        case 1: cubeLayer = cube(faces, fold: 1, orbit: progress, bounds: bounds)
        default: cubeLayer = cube(faces, fold: 1 - progress, orbit: 1, bounds: bounds)
        }
        return .root(bounds, [cubeLayer])
    }

    public func duration(step: Int, base: Double) -> Double { step == 1 ? values[Self.orbitDuration] : base }

    /// The cube, `fold` of the way closed, `orbit` of the way round, centered on the screen.
    func cube(_ faces: [Layer], fold: Double, orbit t: Double, bounds: Rect) -> Layer {
        // A 3D container whose origin is the center of the screen, the faces around it.
        var container = Layer(bounds: Rect(x: -bounds.width / 2, y: -bounds.height / 2, width: bounds.width, height: bounds.height),
                              position: Point(x: bounds.midX, y: bounds.midY))
        container.preserves3D = true
        container.sublayerTransform = orbit(t)
        container.name = "cube"
        let closed = fold >= 1
        container.sublayers = faces.enumerated().map { index, face in
            var face = face
            let number = index + 1
            face.transform = CubeFold.sideTransform(number, side: values[Self.side], amount: fold)
            // Flat, face 4 lies over face 2 (the seed's zPosition 1); folded, it is the front.
            face.zPosition = number == 4 ? 1 - min(max(fold, 0), 1) : 0
            face.isDoubleSided = true
            face.opacity = 1
            return face
        }
        if closed {
            // A face that turns its outside away is hidden (kept, so any screen holds all six faces).
            for i in container.sublayers.indices where !outsideFacesViewer(container.sublayers[i], number: i + 1, in: container) {
                container.sublayers[i].opacity = 0
            }
        }
        return container
    }

    /// Whether a face of the closed cube shows its outside to the viewer. Face 4's front is its
    /// outside; the other faces fold their fronts inward, so their outside is their back. The
    /// front shows when the face's corners, carried through its placement and the camera and
    /// divided by w, wind as an unturned layer's do.
    private func outsideFacesViewer(_ face: Layer, number: Int, in container: Layer) -> Bool {
        let toScreen = face.placement.concatenating(container.sublayerPlacement)
        let corners = Layer.corners(of: face.bounds).map { c -> Point in
            let h = toScreen.apply(x: c.x, y: c.y)
            return Point(x: h.x / h.w, y: h.y / h.w)
        }
        let frontVisible = signedArea(corners) > 0
        return number == 4 ? frontVisible : !frontVisible
    }
}
