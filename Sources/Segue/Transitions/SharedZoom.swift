import Foundation

/// Instagram's shared-element zoom (seed 002): a profile grid of the inputs; tapping a
/// thumbnail pushes its detail screen, which grows out of the thumbnail (the detail screen
/// starts under the seed's aspect-fill transform and returns to identity while its mask
/// grows from the thumbnail's shape to the whole screen and its continuous corners go from
/// 0 to 39 points), over a white placeholder in the thumbnail's cell and a black overlay on
/// the grid that darkens from 0 to 0.5. Pop is the same in reverse. The video tours the
/// inputs: grid, push into image 1, hold, pop, push into image 2, and so on, ending on the
/// grid. A pop may follow a scripted drag: progress keyframes that may go back, as a finger
/// that hesitates or starts to cancel before letting go.
public struct SharedZoom: Transition {
    public static let name = "shared-zoom"
    public static let summary = "A profile grid; each image grows out of its thumbnail into the detail screen (continuous-corner mask 0 → 39 pt, white placeholder, overlay 0 → 0.5) and shrinks back, optionally following a scripted drag (seed 002, Instagram's shared-element zoom)."
    public static let family = TransitionFamily.pages
    public static let source = "seed 002, Instagram's shared-element zoom"
    public static let columns = Parameter.integer("columns", default: 3, in: 1...10, "Thumbnails per row of the grid.")
    public static let spacing = Parameter.number("spacing", default: 2, in: 0...50, "Points between thumbnails.")
    public static let gridTop = Parameter.number("gridTop", default: 140, in: 0...2000, "Points above the grid.")
    public static let gridBackground = Parameter.color("gridBackground", default: .white, "The grid screen's color.")
    public static let detailTop = Parameter.number("detailTop", default: 100, in: 0...2000, "Points above the detail image.")
    public static let detailBackground = Parameter.color("detailBackground", default: .white, "The detail screen's color.")
    /// The seed's 39.
    public static let cornerRadius = Parameter.number("cornerRadius", default: 39, in: 0...200, "The mask's corner radius at full screen, in points.")
    /// The seed's 0.5.
    public static let overlayOpacity = Parameter.number("overlayOpacity", default: 0.5, in: 0...1, "The darkest the grid gets behind the detail screen.")
    /// The seed's white.
    public static let placeholder = Parameter.color("placeholder", default: .white, "What covers the tapped thumbnail's cell.")
    /// Values may go back, as a finger that hesitates or starts to cancel before letting go.
    public static let popDrag = Parameter.numbers("popDrag", default: [], in: 0...1, expected: "none, or at least two values, the first 0 and the last 1",
                                                  "Progress keyframes a pop follows, evenly spaced over its duration.") {
        $0.isEmpty || ($0.count >= 2 && $0.first == 0 && $0.last == 1)
    }
    public static let parameters = [columns.erased, spacing.erased, gridTop.erased, gridBackground.erased, detailTop.erased,
                                    detailBackground.erased, cornerRadius.erased, overlayOpacity.erased, placeholder.erased, popDrag.erased]
    public static let joinsTwoPages = false

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    // MARK: The seed's helpers

    /// `CGAffineTransform.transform(parent:soChild:aspectFills:)`: the scale and translation
    /// (about the parent's center, as UIView.transform) that make `child`, a rect inside
    /// `parent`, cover `rect` with its aspect ratio kept.
    public static func transform(parent: Rect, soChild child: Rect, aspectFills rect: Rect) -> Transform3D {
        let childRatio = child.width / child.height
        let rectRatio = rect.width / rect.height
        let scaleX = rect.width / child.width
        let scaleY = rect.height / child.height
        let scaleFactor = rectRatio < childRatio ? scaleY : scaleX
        let offsetX = rect.midX - parent.midX
        let offsetY = rect.midY - parent.midY
        let centerOffsetX = (parent.midX - child.midX) * scaleFactor
        let centerOffsetY = (parent.midY - child.midY) * scaleFactor
        let translateX = offsetX + centerOffsetX
        let translateY = offsetY + centerOffsetY
        return Transform3D(scaleX: scaleFactor, y: scaleFactor).concatenating(Transform3D(translationX: translateX, y: translateY))
    }

    /// `CGRect.aspectFit(to:)`, as the seed writes it (its width-limited branch multiplies by
    /// the ratio where a division would keep the aspect; the two agree for square thumbnails).
    public static func aspectFit(_ r: Rect, to frame: Rect) -> Rect {
        let ratio = r.width / r.height
        let frameRatio = frame.width / frame.height
        if frameRatio < ratio {
            let height = frame.width * ratio
            return Rect(x: frame.minX, y: frame.minY + (frame.height - height) / 2, width: frame.width, height: height)
        } else {
            let width = frame.height * (r.height / r.width)
            return Rect(x: frame.minX + (frame.width - width) / 2, y: frame.minY, width: width, height: frame.height)
        }
    }

    // MARK: Layout

    /// The grid cell of input `index`, in points.
    public func cellFrame(_ index: Int, bounds: Rect) -> Rect {
        let columns = values[Self.columns], spacing = values[Self.spacing]
        let side = (bounds.width - Double(columns - 1) * spacing) / Double(columns)
        let row = index / columns, column = index % columns
        return Rect(x: bounds.minX + Double(column) * (side + spacing), y: bounds.minY + values[Self.gridTop] + Double(row) * (side + spacing),
                    width: side, height: side)
    }

    /// Where the detail screen shows an image of `size`: the screen's width, below
    /// `detailTop`, as tall as the aspect ratio makes it (a tall image runs off the bottom).
    public func detailFrame(for size: Size, bounds: Rect) -> Rect {
        Rect(x: bounds.minX, y: bounds.minY + values[Self.detailTop], width: bounds.width, height: bounds.width * size.height / size.width)
    }

    // MARK: Screens

    /// The grid, then for each page its detail screen and the grid again.
    public func screenCount(pages: Int) -> Int { 1 + 2 * pages }

    public func screen(_ index: Int, pages: [Layer], bounds: Rect) -> Layer {
        index % 2 == 0 ? grid(pages, scrolled: scrollOffset(index / 2, pages: pages.count, bounds: bounds), bounds: bounds)
            : detail(pages[index / 2], number: index / 2 + 1, bounds: bounds)
    }

    /// How far grid screen `visit` (the grid shown before push `visit` and after pop
    /// `visit - 1`) is scrolled down, in points: as little as keeps the cells of both pops and
    /// pushes it joins wholly in view, starting from the scroll of the visit before (the
    /// grid scrolls while the detail screen hides it, as the app does before a pop).
    public func scrollOffset(_ visit: Int, pages: Int, bounds: Rect) -> Double {
        guard pages > 0 else { return 0 }
        let last = cellFrame(pages - 1, bounds: bounds)
        let maxOffset = max(0, last.maxY - bounds.minY - bounds.height)
        var offset = 0.0
        for v in 0...min(visit, pages) {
            let cells = [v - 1, v].filter { (0..<pages).contains($0) }.map { cellFrame($0, bounds: bounds) }
            let top = cells.map(\.minY).min()! - bounds.minY, bottom = cells.map(\.maxY).max()! - bounds.minY
            if bottom > offset + bounds.height { offset = bottom - bounds.height }
            if top < offset { offset = top }
            offset = min(max(offset, 0), maxOffset)
        }
        return offset
    }

    /// The profile grid: a thumbnail of every page, its content scrolled `offset` points down.
    func grid(_ pages: [Layer], scrolled offset: Double = 0, bounds: Rect) -> Layer {
        var grid = Layer(frame: bounds)
        grid.bounds.origin.y = offset
        grid.backgroundColor = values[Self.gridBackground]
        grid.name = "grid"
        grid.sublayers = pages.indices.map { i in
            var cell = Layer(frame: cellFrame(i, bounds: bounds))
            cell.contents = pages[i].contents
            cell.contentsGravity = .fill
            cell.name = "thumbnail \(i + 1)"
            return cell
        }
        return grid
    }

    /// The detail screen of a page: its image at the screen's width below the header.
    func detail(_ page: Layer, number: Int, bounds: Rect) -> Layer {
        var detail = Layer(frame: bounds)
        detail.backgroundColor = values[Self.detailBackground]
        detail.name = "detail \(number)"
        if let picture = page.contents {
            var imageView = Layer(frame: detailFrame(for: picture.size, bounds: bounds))
            imageView.contents = picture
            imageView.contentsGravity = .stretch
            imageView.name = "image \(number)"
            detail.sublayers = [imageView]
        }
        return detail
    }

    /// Step 2k pushes into input k; step 2k + 1 pops back to the grid.
    public func scene(step: Int, progress: Double, pages: [Layer], bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [screen(step, pages: pages, bounds: bounds)]) }
        if progress >= 1 { return .root(bounds, [screen(step + 1, pages: pages, bounds: bounds)]) }
        let index = step / 2
        // The grid the push starts from or the pop returns to, and the tapped cell on screen.
        let offset = scrollOffset(step % 2 == 0 ? index : index + 1, pages: pages.count, bounds: bounds)
        let cell = cellFrame(index, bounds: bounds).offsetBy(dx: 0, dy: -offset)
        let grid = grid(pages, scrolled: offset, bounds: bounds), detail = detail(pages[index], number: index + 1, bounds: bounds)
        if step % 2 == 0 {
            return push(grid: grid, detail: detail, cell: cell, progress: progress, bounds: bounds)
        }
        return pop(detail: detail, grid: grid, cell: cell, progress: progress, bounds: bounds)
    }

    public func progress(step: Int, linear: Double, curve: TimingCurve) -> Double {
        let keys = values[Self.popDrag]
        guard step % 2 == 1, keys.count >= 2 else { return curve(linear) }
        let position = min(max(linear, 0), 1) * Double(keys.count - 1)
        let i = min(Int(position), keys.count - 2)
        return keys[i] + (keys[i + 1] - keys[i]) * (position - Double(i))
    }

    /// The rect of the detail image in its screen.
    private func imageFrame(_ detail: Layer) -> Rect { detail.sublayers.first?.frame ?? detail.bounds }

    /// The seed's pushAnimation at `p`: everything animates from its start value to its end
    /// value, linearly in the eased progress (UIView.animate).
    func push(grid: Layer, detail: Layer, cell fromFrame: Rect, progress p: Double, bounds: Rect) -> Layer {
        let toFrame = imageFrame(detail)
        var toView = detail
        toView.transform = SharedZoom.lerp(SharedZoom.transform(parent: detail.frame, soChild: toFrame, aspectFills: fromFrame), .identity, p)
        toView.mask = RoundedRect(rect: SharedZoom.lerp(SharedZoom.aspectFit(fromFrame, to: toFrame), detail.bounds, p),
                                  cornerRadius: values[Self.cornerRadius] * p, cornerCurve: .continuous)
        let fromView = covered(grid, cell: fromFrame, overlay: values[Self.overlayOpacity] * p, bounds: bounds)
        return .root(bounds, [fromView, toView])
    }

    /// The seed's popAnimation at `p`.
    func pop(detail: Layer, grid: Layer, cell toFrame: Rect, progress p: Double, bounds: Rect) -> Layer {
        let fromFrame = imageFrame(detail)
        var fromView = detail
        fromView.transform = SharedZoom.lerp(.identity, SharedZoom.transform(parent: detail.frame, soChild: fromFrame, aspectFills: toFrame), p)
        fromView.mask = RoundedRect(rect: SharedZoom.lerp(detail.bounds, SharedZoom.aspectFit(toFrame, to: fromFrame), p),
                                    cornerRadius: values[Self.cornerRadius] * (1 - p), cornerCurve: .continuous)
        let toView = covered(grid, cell: toFrame, overlay: values[Self.overlayOpacity] * (1 - p), bounds: bounds)
        return .root(bounds, [toView, fromView])
    }

    /// The grid with the placeholder over the cell and the dark overlay over everything.
    private func covered(_ grid: Layer, cell: Rect, overlay opacity: Double, bounds: Rect) -> Layer {
        var grid = grid
        // The placeholder sits in the grid's scrolled content, where the cell is.
        var placeholder = Layer(frame: cell.offsetBy(dx: grid.bounds.minX, dy: grid.bounds.minY))
        placeholder.backgroundColor = values[Self.placeholder]
        placeholder.name = "placeholder"
        var overlay = Layer(frame: grid.bounds)
        overlay.backgroundColor = .black
        overlay.opacity = opacity
        overlay.name = "overlay"
        grid.sublayers += [placeholder, overlay]
        return grid
    }

    static func lerp(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }

    static func lerp(_ a: Rect, _ b: Rect, _ t: Double) -> Rect {
        Rect(x: lerp(a.minX, b.minX, t), y: lerp(a.minY, b.minY, t), width: lerp(a.width, b.width, t), height: lerp(a.height, b.height, t))
    }

    /// Entry by entry, as Core Animation interpolates a scale and a translation.
    static func lerp(_ a: Transform3D, _ b: Transform3D, _ t: Double) -> Transform3D {
        Transform3D(m11: lerp(a.m11, b.m11, t), m12: lerp(a.m12, b.m12, t), m13: lerp(a.m13, b.m13, t), m14: lerp(a.m14, b.m14, t),
                    m21: lerp(a.m21, b.m21, t), m22: lerp(a.m22, b.m22, t), m23: lerp(a.m23, b.m23, t), m24: lerp(a.m24, b.m24, t),
                    m31: lerp(a.m31, b.m31, t), m32: lerp(a.m32, b.m32, t), m33: lerp(a.m33, b.m33, t), m34: lerp(a.m34, b.m34, t),
                    m41: lerp(a.m41, b.m41, t), m42: lerp(a.m42, b.m42, t), m43: lerp(a.m43, b.m43, t), m44: lerp(a.m44, b.m44, t))
    }
}
