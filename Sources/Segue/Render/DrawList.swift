/// What fills a drawn polygon.
indirect enum Paint: Sendable {
    /// One premultiplied color.
    case solid(UInt32)
    /// `image`'s texels inside `source` (whole pixels), reached from a canvas pixel center
    /// through `toTexel`.
    case image(Image, source: (x0: Int, y0: Int, x1: Int, y1: Int), toTexel: Homography)
    /// Other items drawn into a transparent buffer of their own, which is then composited
    /// once at the item's opacity: the group opacity of a layer whose pieces overlap.
    case group([DrawItem])
    /// A per-pixel transition over the canvas: the two pages' items, each drawn into a
    /// picture of its own, from which the transition writes the frame's pixels.
    case pixels(PixelMix, from: [DrawItem], to: [DrawItem])

    /// True when the paint hides whatever lies beneath it everywhere it is drawn.
    var isOpaque: Bool {
        switch self {
        case .solid(let pixel): return pixel >> 24 == 255
        case .image(let image, _, _): return image.isOpaque
        case .group, .pixels: return false
        }
    }
}

/// A rounded rectangle that limits what shows of a quad: the mask of the quad's layer or of
/// an ancestor. `toLocal` takes a canvas pixel to the shape's own space, where one pixel
/// spans about `pixelSize` units.
struct ShapeMask: Sendable {
    let shape: RoundedRect
    let toLocal: Homography
    let pixelSize: Double

    init?(_ shape: RoundedRect, canvas: Homography) {
        guard let inverse = canvas.inverse else { return nil }
        // The size of a pixel in the shape's space, measured at the shape's center.
        let c = canvas.apply(Point(x: shape.rect.midX, y: shape.rect.midY))
        let px = Point(x: c.x / c.w, y: c.y / c.w)
        func local(_ p: Point) -> SIMD2<Double> { let h = inverse.apply(p); return SIMD2(h.x / h.w, h.y / h.w) }
        let o = local(px), u = local(Point(x: px.x + 1, y: px.y)) - o, v = local(Point(x: px.x, y: px.y + 1)) - o
        let area = abs(u.x * v.y - u.y * v.x)
        guard area > 0, area.isFinite else { return nil }
        self.shape = shape
        self.toLocal = inverse
        self.pixelSize = area.squareRoot()
    }

    /// The columns of canvas row `y` a mask upright on the canvas (scaled and moved, not
    /// turned) lets through: outside `touched` its coverage is 0, inside `inside` it is 1
    /// (those pixels need no masking). Nil when the mask is turned or in perspective.
    ///
    /// A pixel's coverage is 1 when its center lies at least half a pixel (`pixelSize / 2`,
    /// in the shape's units) inside the outline, and 0 when at least that far outside. A
    /// square of that half-size around the center lying inside the shape is enough for the
    /// first; the square missing the shape for the second. In a band of rows, the shape is
    /// narrowest where the band comes nearest a horizontal side and widest where it comes
    /// farthest, by the corner outline there (`RoundedRect.inset`).
    func columns(row y: Int) -> (touched: Range<Int>, inside: Range<Int>)? {
        let m = toLocal
        guard m.m12 == 0, m.m21 == 0, m.m13 == 0, m.m23 == 0, m.m33 != 0, m.m11 != 0, m.m22 != 0 else { return nil }
        let r = shape.rect, h = pixelSize / 2, margin = 1e-7 * max(1, pixelSize)
        let cy = ((Double(y) + 0.5) * m.m22 + m.m32) / m.m33
        let top = cy - h, bottom = cy + h
        guard top.isFinite, bottom.isFinite else { return nil }
        // The canvas columns whose centers map into [low, high] in the shape's x.
        func canvasColumns(_ low: Double, _ high: Double) -> Range<Int> {
            guard low <= high else { return 0..<0 }
            let p = (low * m.m33 - m.m31) / m.m11 - 0.5, q = (high * m.m33 - m.m31) / m.m11 - 0.5
            guard p.isFinite, q.isFinite, abs(p) < 1e9, abs(q) < 1e9 else { return 0..<0 }
            let first = Int(min(p, q).rounded(.up)), last = Int(max(p, q).rounded(.down))
            return first <= last ? first..<(last + 1) : 0..<0
        }
        // Touched: the band's widest part of the shape, widened by the half-size.
        var touched: Range<Int> = 0..<0
        if bottom > r.minY && top < r.maxY {
            let nearest = min(max(r.midY, top), bottom)
            let inset = shape.inset(min(nearest - r.minY, r.maxY - nearest))
            touched = canvasColumns(r.minX + inset - h - margin, r.maxX - inset + h + margin)
        }
        // Inside: the band's narrowest part, narrowed by the half-size.
        var inside: Range<Int> = 0..<0
        if top >= r.minY && bottom <= r.maxY {
            let inset = shape.inset(min(top - r.minY, r.maxY - bottom))
            inside = canvasColumns(r.minX + inset + h + margin, r.maxX - inset - h - margin)
        }
        return (touched, inside)
    }

    /// The part of canvas pixel (x, y) inside the shape, 0...1.
    @inline(__always)
    func coverage(x: Int, y: Int) -> Double {
        let h = toLocal.apply(Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
        let d = shape.signedDistance(Point(x: h.x / h.w, y: h.y / h.w))
        return min(max(d / pixelSize + 0.5, 0), 1)
    }
}

extension ShapeMask {
    /// The part of `polygon` (points in a layer's plane, which `canvas` maps to the canvas)
    /// inside this mask, cut in that plane, when the mask is a plain rectangle: each side of
    /// the rectangle is a straight line in any plane a homography maps it to. Nil when it is
    /// not (rounded corners), or when the polygon reaches behind the mask's plane.
    func cut(_ polygon: [Point], canvas: Homography) -> [Point]? {
        guard shape.effectiveRadius == 0, !polygon.isEmpty else { return nil }
        let h = canvas.concatenating(toLocal)
        let ws = polygon.map { h.apply($0).w }
        guard ws.allSatisfy({ $0 > 0 }) || ws.allSatisfy({ $0 < 0 }) else { return nil }
        let sign: Double = ws[0] > 0 ? 1 : -1
        let r = shape.rect
        // x' >= minX, x' <= maxX, y' >= minY, y' <= maxY with x' = X / W, y' = Y / W: linear in the plane.
        let sides: [(Double, Double, Double)] = [
            (h.m11 - r.minX * h.m13, h.m21 - r.minX * h.m23, h.m31 - r.minX * h.m33),
            (r.maxX * h.m13 - h.m11, r.maxX * h.m23 - h.m21, r.maxX * h.m33 - h.m31),
            (h.m12 - r.minY * h.m13, h.m22 - r.minY * h.m23, h.m32 - r.minY * h.m33),
            (r.maxY * h.m13 - h.m12, r.maxY * h.m23 - h.m22, r.maxY * h.m33 - h.m32),
        ]
        var kept = polygon
        for (a, b, c) in sides {
            var next: [Point] = []
            for i in kept.indices {
                let p = kept[i], q = kept[(i + 1) % kept.count]
                let dp = sign * (a * p.x + b * p.y + c), dq = sign * (a * q.x + b * q.y + c)
                if dp >= 0 { next.append(p) }
                if (dp >= 0) != (dq >= 0) {
                    let t = dp / (dp - dq)
                    next.append(Point(x: p.x + t * (q.x - p.x), y: p.y + t * (q.y - p.y)))
                }
            }
            kept = next
            if kept.count < 3 { return [] }
        }
        return kept
    }
}

/// One convex polygon to draw, in canvas pixels: the flattened form of a layer's background
/// or contents (a quad whose corners run top left, top right, bottom right, bottom left of
/// the source rect, or the part of it in front of the near plane), or a group of items
/// composited together.
struct DrawItem: Sendable {
    var corners: [Point]
    var paint: Paint
    var opacity: Double
    /// The corners in the space of the enclosing 3D group, after its perspective divide,
    /// where the viewer looks down the z axis from +z; nil outside a 3D group. A group's
    /// are all its items' corners, which lie in one plane.
    var groupCorners: [SIMD3<Double>]?
    /// Masks the quad is seen through.
    var masks: [ShapeMask] = []
    /// The layer's name, for tests.
    var name: String?
    /// How a group is laid over what is beneath (`Layer.blendMode`).
    var blend = BlendMode.normal
}

/// The near plane: the smallest w (the homogeneous divisor, 1 at the plane of the screen and
/// 0 at the eye) a drawn point may have. A layer reaching nearer is cut along this plane and
/// its part in front drawn, as a camera cuts off what crosses its near plane; with m34 = -1/d
/// the plane lies d/1024 in front of the eye.
let nearPlaneW = 1.0 / 1024

/// One layer's contents in a frame, planned once: the key its pixels are made and found by,
/// and where they go in the layer's bounds.
struct ContentsPlan: Sendable {
    var key: PictureKey
    var destination: Rect
}

extension Layer {
    /// The sublayers in the order they are drawn: by `zPosition`, then as listed.
    var sublayersInDrawingOrder: [Layer] {
        sublayers.enumerated().sorted(by: { ($0.element.zPosition, $0.offset) < ($1.element.zPosition, $1.offset) }).map(\.element)
    }

    /// The contents of every layer of the tree, drawn or not, planned at `scale`: what
    /// `drawList` needs the pixels of, each layer before its sublayers, in drawing order.
    func contentsPlans(scale: Double) -> [ContentsPlan] {
        var plans: [ContentsPlan] = []
        func visit(_ layer: Layer) {
            if let contents = layer.contents {
                let plan = PictureKey.plan(contents, in: layer.bounds, gravity: layer.contentsGravity, scale: scale)
                plans.append(ContentsPlan(key: plan.key, destination: plan.destination))
            }
            layer.sublayersInDrawingOrder.forEach(visit)
        }
        visit(self)
        return plans
    }

    /// Flattens the tree under this root layer into polygons in paint order, in canvas pixels
    /// (points times `scale`), its contents' pixels found in `images` by their keys (those
    /// of `contentsPlans(scale:)` of this tree).
    func drawList(scale: Double, images: [PictureKey: Image]) -> [DrawItem] {
        collect(toCanvas: placement.flattened.concatenating(Transform3D(scaleX: scale, y: scale)),
                step: placement, groupSpace: nil, masks: [], scale: scale, images: images)
    }

    /// The draw list with the tree's pictures resolved through `pictures`, on this thread.
    func drawList(scale: Double, pictures: PictureCache) throws -> [DrawItem] {
        let keys = Set(contentsPlans(scale: scale).map(\.key))
        return drawList(scale: scale, images: Dictionary(uniqueKeysWithValues: try keys.map { ($0, try pictures.image($0)) }))
    }

    /// The items of this layer and its sublayers. `toCanvas` maps this layer's bounds space
    /// to canvas pixels; `step` maps it into its superlayer's space, unflattened;
    /// `groupSpace` maps it into the space of the enclosing 3D group, if any, where the
    /// group's polygons are put in depth order. Opacities are relative to the superlayer's.
    private func collect(toCanvas: Transform3D, step: Transform3D, groupSpace: Transform3D?,
                         masks parentMasks: [ShapeMask], scale: Double, images: [PictureKey: Image]) -> [DrawItem] {
        guard opacity > 0 else { return [] }
        var items: [DrawItem] = []
        let canvas = Homography(toCanvas)
        // The mask limits everything the layer draws; rounded corners limit its background, and
        // with masksToBounds its contents and sublayers too.
        var masks = parentMasks
        if let mask, let shape = ShapeMask(mask, canvas: canvas) { masks.append(shape) }
        let rounded = cornerRadius > 0 ? ShapeMask(RoundedRect(rect: bounds, cornerRadius: cornerRadius, cornerCurve: cornerCurve), canvas: canvas) : nil
        let backgroundMasks = masks + (rounded.map { [$0] } ?? [])
        if masksToBounds {
            if let rounded { masks.append(rounded) } else if let shape = ShapeMask(RoundedRect(rect: bounds), canvas: canvas) { masks.append(shape) }
        }

        // The contents, prepared at the size the layer draws them, and where they go in the bounds.
        let prepared = contents.map { contents -> (image: Image, destination: Rect) in
            let plan = PictureKey.plan(contents, in: bounds, gravity: contentsGravity, scale: scale)
            guard let image = images[plan.key] else { preconditionFailure("no pixels for \(plan.key)") }
            return (image, plan.destination)
        }
        if !isBackFacing(canvas) {
            // An opaque image over the whole bounds hides the background: drawing both would
            // only darken the anti-aliased edges.
            let hidden = prepared?.image.isOpaque == true && prepared?.destination == bounds
            if let color = backgroundColor, color.alpha > 0, !hidden {
                appendPolygon(bounds, to: canvas, groupSpace: groupSpace, paint: .solid(color.premultipliedPixel),
                              masks: backgroundMasks, into: &items)
            }
            if let (image, destination) = prepared {
                let texelToCanvas = Homography(mapping: Rect(size: image.size), to: destination).concatenating(canvas)
                if let toTexel = texelToCanvas.inverse {
                    appendPolygon(destination, to: canvas, groupSpace: groupSpace,
                                  paint: .image(image, source: (x0: 0, y0: 0, x1: image.width, y1: image.height), toTexel: toTexel),
                                  masks: masks, into: &items)
                }
            }
        }

        // A per-pixel transition's pages are drawn each apart, flat, and the frame written from them.
        if let pixelMix, sublayers.count == 2 {
            let pages = sublayers.map { page -> [DrawItem] in
                let pageStep = page.placement.concatenating(sublayerPlacement)
                return page.collect(toCanvas: pageStep.flattened.concatenating(toCanvas), step: pageStep, groupSpace: nil,
                                    masks: masks, scale: scale, images: images)
            }
            items.append(DrawItem(corners: Layer.corners(of: bounds).map { canvas.project($0) },
                                  paint: .pixels(pixelMix, from: pages[0], to: pages[1]), opacity: 1, groupCorners: nil, name: name))
            return withOpacity(items)
        }

        // Sublayers of a 3D group are measured in the group's superlayer space (after the
        // group's own transform); inside a flat layer they are flattened into its plane.
        let childrenSpace: Transform3D? = preserves3D ? (groupSpace ?? step) : groupSpace
        var children: [DrawItem] = []
        let sublayerSpace = sublayerPlacement
        for child in sublayersInDrawingOrder {
            let childStep = child.placement.concatenating(sublayerSpace)
            let kept = preserves3D ? childStep : childStep.flattened
            children += child.collect(toCanvas: kept.concatenating(toCanvas), step: childStep,
                                      groupSpace: childrenSpace.map { kept.concatenating($0) }, masks: masks,
                                      scale: scale, images: images)
        }
        if preserves3D && groupSpace == nil {
            children = depthOrdered(children)
        }
        items.append(contentsOf: children)
        return withOpacity(items)
    }

    /// The layer's items at its opacity. A layer (not a 3D group, which draws nothing of its
    /// own) whose items overlap one another is drawn as a group: its items are composited
    /// together, then faded once, so none shows through another (Core Animation's group
    /// opacity). Items that do not overlap are simply faded each.
    private func withOpacity(_ items: [DrawItem]) -> [DrawItem] {
        guard !items.isEmpty else { return items }
        if blendMode != .normal {
            // Drawn together, then blended once by the mode at the layer's opacity.
            var group = DrawItem.group(items, opacity: opacity)
            group.blend = blendMode
            return [group]
        }
        guard opacity < 1 else { return items }
        if !preserves3D && DrawItem.overlap(items) {
            var group = DrawItem.group(items, opacity: opacity)
            group.name = name
            return [group]
        }
        return items.map { item in
            var item = item
            item.opacity *= opacity
            return item
        }
    }

    /// True when the layer is one-sided and shows its back: the part of its bounds in front of
    /// the near plane winds the other way round on screen.
    private func isBackFacing(_ canvas: Homography) -> Bool {
        guard !isDoubleSided else { return false }
        let visible = Layer.visiblePart(of: bounds, canvas: canvas)
        guard visible.count >= 3 else { return false }
        return signedArea(visible.map { canvas.project($0) }) < 0
    }

    private func appendPolygon(_ rect: Rect, to canvas: Homography, groupSpace: Transform3D?, paint: Paint,
                               masks allMasks: [ShapeMask], into items: inout [DrawItem]) {
        var visible = Layer.visiblePart(of: rect, canvas: canvas)
        // A plain rectangular mask (masksToBounds without rounded corners, as a page moved by
        // Ken Burns motion has) is cut into the polygon, exactly, in the layer's plane: its
        // edges are then the polygon's, with exact-area coverage, and nothing is evaluated per pixel.
        var masks: [ShapeMask] = []
        for shape in allMasks {
            if visible.count >= 3, let cut = shape.cut(visible, canvas: canvas), cut.count <= PreparedPolygon.maxCorners {
                visible = cut
            } else {
                masks.append(shape)
            }
        }
        guard visible.count >= 3 else { return }
        let corners = visible.map { canvas.project($0) }
        guard corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return }
        let solid = groupSpace.map { space in
            visible.map { c -> SIMD3<Double> in
                let h = space.apply(x: c.x, y: c.y)
                return SIMD3(h.x / h.w, h.y / h.w, h.z / h.w)
            }
        }
        items.append(DrawItem(corners: corners, paint: paint, opacity: 1, groupCorners: solid, masks: masks, name: name))
    }

    /// The part of `rect` (in the layer's bounds space) that `canvas` maps in front of the
    /// near plane: the rect itself, a polygon cut along the plane, or nothing. The cut is
    /// made in the layer's own plane, where w varies linearly.
    static func visiblePart(of rect: Rect, canvas: Homography) -> [Point] {
        let corners = corners(of: rect)
        let w = corners.map { canvas.apply($0).w }
        if w.allSatisfy({ $0 >= nearPlaneW }) { return corners }
        var kept: [Point] = []
        for i in corners.indices {
            let j = (i + 1) % corners.count
            if w[i] >= nearPlaneW { kept.append(corners[i]) }
            if (w[i] >= nearPlaneW) != (w[j] >= nearPlaneW) {
                let t = (w[i] - nearPlaneW) / (w[i] - w[j])
                kept.append(Point(x: corners[i].x + t * (corners[j].x - corners[i].x), y: corners[i].y + t * (corners[j].y - corners[i].y)))
            }
        }
        return kept
    }

    static func corners(of r: Rect) -> [Point] {
        [Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY), Point(x: r.maxX, y: r.maxY), Point(x: r.minX, y: r.maxY)]
    }
}

extension Homography {
    /// Where `p` lands after the divide by w.
    func project(_ p: Point) -> Point {
        let h = apply(p)
        return Point(x: h.x / h.w, y: h.y / h.w)
    }
}

extension DrawItem {
    /// `items` drawn together into a picture of their own, then laid over what is beneath at
    /// `opacity`: its corners the items' bounding box.
    static func group(_ items: [DrawItem], opacity: Double) -> DrawItem {
        let xs = items.flatMap { $0.corners.map(\.x) }, ys = items.flatMap { $0.corners.map(\.y) }
        let box = Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
        let solid = items.contains { $0.groupCorners == nil } ? nil : items.flatMap { $0.groupCorners! }
        return DrawItem(corners: Layer.corners(of: box), paint: .group(items), opacity: opacity, groupCorners: solid)
    }

    /// Whether any two of the items overlap on screen (their bounding boxes, a conservative test).
    static func overlap(_ items: [DrawItem]) -> Bool {
        guard items.count > 1 else { return false }
        let boxes = items.map { item -> (Double, Double, Double, Double) in
            let xs = item.corners.map(\.x), ys = item.corners.map(\.y)
            return (xs.min()!, ys.min()!, xs.max()!, ys.max()!)
        }
        for i in boxes.indices {
            for j in boxes.indices where j > i {
                let a = boxes[i], b = boxes[j]
                if a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3 { return true }
            }
        }
        return false
    }
}

/// Twice the signed area of a polygon; positive when it winds as an unturned layer's
/// corners do on screen (y down).
func signedArea(_ p: [Point]) -> Double {
    var sum = 0.0
    for i in p.indices {
        let a = p[i], b = p[(i + 1) % p.count]
        sum += a.x * b.y - b.x * a.y
    }
    return sum
}
