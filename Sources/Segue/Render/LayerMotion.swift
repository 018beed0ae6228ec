/// How far a layer tree's drawn points move between scenes: what motion blur counts its
/// samples from (`MotionBlur.sampleCount`).
extension Layer {
    /// Where nine points of each drawn layer's bounds (its corners, its edges' middles and
    /// its centre) and of each mask's land on the canvas, in pixels at `scale`, in drawing
    /// order; points behind the near plane are left out. Two scenes of one transition list
    /// their points alike as long as the same layers are drawn.
    func motionPoints(scale: Double) -> [Point] {
        var points: [Point] = []
        func visit(_ layer: Layer, toCanvas: Transform3D) {
            guard layer.opacity > 0 else { return }
            let canvas = Homography(toCanvas)
            func add(_ r: Rect) {
                for y in [r.minY, r.midY, r.maxY] {
                    for x in [r.minX, r.midX, r.maxX] {
                        let h = canvas.apply(Point(x: x, y: y))
                        if h.w >= nearPlaneW { points.append(Point(x: h.x / h.w, y: h.y / h.w)) }
                    }
                }
            }
            if layer.contents != nil || layer.backgroundColor != nil { add(layer.bounds) }
            if let mask = layer.mask { add(mask.rect) }
            for child in layer.sublayersInDrawingOrder {
                let step = child.placement.concatenating(layer.sublayerPlacement)
                visit(child, toCanvas: (layer.preserves3D ? step : step.flattened).concatenating(toCanvas))
            }
        }
        visit(self, toCanvas: placement.flattened.concatenating(Transform3D(scaleX: scale, y: scale)))
        return points
    }

    /// How far the drawn points travel through `scenes`, in pixels at `scale`: the sum over
    /// the steps from scene to scene of the longest move of a point (at least the longest path
    /// of any one point). A step between two scenes that do not draw the same layers (a page
    /// that leaves the canvas is no longer drawn) counts as the mean of those that do.
    static func farthestTravel(through scenes: [Layer], scale: Double) -> Double {
        let points = scenes.map { $0.motionPoints(scale: scale) }
        var total = 0.0, matched = 0, steps = 0
        for (a, b) in zip(points, points.dropFirst()) {
            steps += 1
            guard a.count == b.count, !a.isEmpty else { continue }
            matched += 1
            total += zip(a, b).map { p, q in ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot() }.max()!
        }
        return matched == 0 ? 0 : total * Double(steps) / Double(matched)
    }
}
