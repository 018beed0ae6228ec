import Foundation
import Testing
@testable import Segue

@Suite("shared-zoom follows seed 002")
struct SharedZoomTests {
    let bounds = Rect(x: 0, y: 0, width: 360, height: 640)
    let zoom = SharedZoom()

    func near(_ a: Rect, _ b: Rect, _ tolerance: Double = 1e-9) -> Bool {
        close(a.minX, b.minX, tolerance) && close(a.minY, b.minY, tolerance) && close(a.width, b.width, tolerance) && close(a.height, b.height, tolerance)
    }

    /// Where a rect of a layer's bounds lands in its superlayer, through the layer's placement.
    func placed(_ r: Rect, by layer: Layer) -> Rect {
        let a = layer.placement.project(Point(x: r.minX, y: r.minY)), b = layer.placement.project(Point(x: r.maxX, y: r.maxY))
        return Rect(x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y)
    }

    @Test("thumbnails: square cells in columns under the header")
    func cells() {
        let side = (360.0 - 2 * 2) / 3
        #expect(near(zoom.cellFrame(0, bounds: bounds), Rect(x: 0, y: 140, width: side, height: side)))
        #expect(near(zoom.cellFrame(4, bounds: bounds), Rect(x: side + 2, y: 140 + side + 2, width: side, height: side)))
        #expect(near(zoom.detailFrame(for: Size(width: 720, height: 1280), bounds: bounds), Rect(x: 0, y: 100, width: 360, height: 640)))
    }

    @Test("the seed's aspect-fill transform puts the child's center on the rect and covers it")
    func aspectFillTransform() {
        let parent = bounds, child = Rect(x: 0, y: 100, width: 360, height: 640), cell = zoom.cellFrame(1, bounds: bounds)
        var layer = Layer(frame: parent)
        layer.transform = SharedZoom.transform(parent: parent, soChild: child, aspectFills: cell)
        let landed = placed(child, by: layer)
        // A tall child fills a square by its width: scale = cell width / child width.
        #expect(close(layer.transform.m11, cell.width / 360) && close(layer.transform.m22, cell.width / 360))
        #expect(close(landed.midX, cell.midX) && close(landed.midY, cell.midY))
        #expect(close(landed.width, cell.width) && landed.height >= cell.height)
    }

    @Test("the seed's aspectFit fits a square into the image rect")
    func aspectFit() {
        let square = Rect(x: 10, y: 20, width: 50, height: 50)
        #expect(SharedZoom.aspectFit(square, to: Rect(x: 0, y: 100, width: 360, height: 640)) == Rect(x: 0, y: 240, width: 360, height: 360))
        #expect(SharedZoom.aspectFit(square, to: Rect(x: 0, y: 0, width: 400, height: 200)) == Rect(x: 100, y: 0, width: 200, height: 200))
    }

    func screens() -> [Layer] {
        let pages = EndCheck().pages()
        return (0..<zoom.screenCount(pages: pages.count)).map { zoom.screen($0, pages: pages, bounds: bounds) }
    }

    func layer(_ root: Layer, _ name: String) -> Layer? { root.sublayers.first { $0.name == name } }

    @Test("push at t = 0: the mask, carried by the transform, is exactly the thumbnail; at t = 1 the whole screen")
    func pushEnds() throws {
        let s = screens(), cell = zoom.cellFrame(0, bounds: bounds)
        let start = zoom.push(grid: s[0], detail: s[1], cell: cell, progress: 0, bounds: bounds)
        let toView = try #require(layer(start, "detail 1"))
        let mask = try #require(toView.mask)
        #expect(near(placed(mask.rect, by: toView), cell))
        #expect(mask.cornerRadius == 0 && mask.cornerCurve == .continuous)
        #expect(layer(start, "grid")?.sublayers.last?.opacity == 0)

        let end = zoom.push(grid: s[0], detail: s[1], cell: cell, progress: 1, bounds: bounds)
        let done = try #require(layer(end, "detail 1"))
        #expect(done.transform == .identity && done.mask?.rect == bounds && done.mask?.cornerRadius == 39)
        #expect(layer(end, "grid")?.sublayers.last?.opacity == 0.5)
        // The placeholder covers the cell, under the overlay.
        #expect(layer(end, "grid")?.sublayers.suffix(2).map(\.name) == ["placeholder", "overlay"])
        #expect(layer(end, "grid")?.sublayers.first { $0.name == "placeholder" }?.frame == cell)
    }

    @Test("pop is the reverse: from the full screen to the thumbnail, the grid under the detail")
    func popEnds() throws {
        let s = screens(), cell = zoom.cellFrame(1, bounds: bounds)
        let start = zoom.pop(detail: s[3], grid: s[4], cell: cell, progress: 0, bounds: bounds)
        #expect(start.sublayers.map(\.name) == ["grid", "detail 2"])
        #expect(layer(start, "detail 2")?.mask == RoundedRect(rect: bounds, cornerRadius: 39, cornerCurve: .continuous))
        let end = zoom.pop(detail: s[3], grid: s[4], cell: cell, progress: 1, bounds: bounds)
        let fromView = try #require(layer(end, "detail 2"))
        #expect(near(placed(fromView.mask!.rect, by: fromView), cell))
        #expect(fromView.mask?.cornerRadius == 0 && layer(end, "grid")?.sublayers.last?.opacity == 0)
    }

    @Test("the tour: grid, detail 1, grid, detail 2, ..., grid")
    func tour() {
        #expect(screens().map(\.name) == ["grid", "detail 1", "grid", "detail 2", "grid", "detail 3", "grid"])
    }

    @Test("every push and pop starts and ends on its screens, pixel for pixel")
    func ends() {
        EndCheck().check(zoom)
    }

    @Test("a scripted drag sets the pop's progress; pushes keep the curve")
    func drag() {
        let z = SharedZoom().with(SharedZoom.popDrag, [0, 0.4, 0.6, 0.3, 0.1, 0.5, 1])
        #expect(close(z.progress(step: 1, linear: 0.5, curve: .linear), 0.3))
        #expect(close(z.progress(step: 1, linear: 0.25, curve: .linear), 0.5))
        #expect(close(z.progress(step: 3, linear: 1, curve: .linear), 1))
        #expect(z.progress(step: 0, linear: 0.5, curve: .easeIn) == TimingCurve.easeIn(0.5))
    }
}

@Suite("Rounded masks")
struct MaskTests {
    @Test("continuous corners start 1.528665 radii from the corner and run outside the circular ones there")
    func continuousCorner() {
        let circular = RoundedRect(rect: Rect(x: 0, y: 0, width: 1000, height: 1000), cornerRadius: 100, cornerCurve: .circular)
        var continuous = circular
        continuous.cornerCurve = .continuous
        // From the published curve: at 0.8 r along the edge the continuous outline is 0.032 r in,
        // the circle 0.020 r in; a point 0.026 r in lies between them.
        #expect(circular.signedDistance(Point(x: 80, y: 2.6)) > 0)
        #expect(continuous.signedDistance(Point(x: 80, y: 2.6)) < 0)
        // Past the reach both are the straight edge.
        #expect(close(continuous.signedDistance(Point(x: 160, y: 3)), 3) && close(circular.signedDistance(Point(x: 120, y: 3)), 3))
        // At 45° both pass about 0.29 r from the corner.
        #expect(abs(circular.signedDistance(Point(x: 29.29, y: 29.29))) < 0.01)
        #expect(abs(continuous.signedDistance(Point(x: 29.15, y: 29.15))) < 0.05)
        #expect(continuous.signedDistance(Point(x: 500, y: 500)) == 500 && circular.signedDistance(Point(x: -1, y: 500)) == -1)
    }

    @Test("a mask shows only its rounded rectangle, with anti-aliased edges, and moves with the layer")
    func maskedLayer() {
        let canvas = Canvas(width: 100, height: 100, scale: 1, background: .black)
        var layer = Layer(frame: canvas.bounds)
        layer.backgroundColor = .white
        layer.mask = RoundedRect(rect: Rect(x: 10, y: 20.5, width: 80, height: 60), cornerRadius: 20, cornerCurve: .continuous)
        layer.transform = Transform3D(translationX: 5, y: 0)
        let frame = Compositor(threads: 1).render(.root(canvas.bounds, [layer]), canvas: canvas)
        #expect(red(frame[50, 50]) == 255)
        #expect(red(frame[16, 22]) == 0)                 // cut off by the corner
        #expect(red(frame[14, 50]) == 0 && red(frame[15, 50]) == 255) // the left edge, moved by 5
        #expect(abs(red(frame[50, 20]) - 128) <= 2)      // the top edge runs through the pixel's middle
    }

    @Test("cornerRadius rounds the background; masksToBounds clips the sublayers too")
    func cornerRadius() {
        let canvas = Canvas(width: 40, height: 40, scale: 1, background: .black)
        var card = Layer(frame: Rect(x: 0, y: 0, width: 40, height: 40))
        card.backgroundColor = .white
        card.cornerRadius = 10
        var child = Layer(frame: card.bounds)
        child.backgroundColor = Color(red: 1, green: 0, blue: 0)
        child.opacity = 0.5
        card.sublayers = [child]
        let open = Compositor(threads: 1).render(.root(canvas.bounds, [card]), canvas: canvas)
        #expect(red(open[0, 0]) > 100 && green(open[0, 0]) == 0) // the child still covers the corner
        card.masksToBounds = true
        let clipped = Compositor(threads: 1).render(.root(canvas.bounds, [card]), canvas: canvas)
        #expect(red(clipped[0, 0]) == 0 && red(clipped[20, 20]) == 255)
    }
}
