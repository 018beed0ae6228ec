import Foundation
import Testing
@testable import Segue

/// Renders a transition's scene and the two screens it joins, for the end checks.
struct EndCheck {
    let canvas = Canvas(width: 90, height: 160, scale: 0.25, background: Color(red: 0.1, green: 0.2, blue: 0.3))

    func pages() -> [Layer] {
        let images = [makeImage(width: 90, height: 160) { x, y in (UInt8(x * 2), UInt8(y), 200) },
                      makeImage(width: 90, height: 160) { x, y in (UInt8(y), UInt8(x), 30) },
                      makeImage(width: 90, height: 160) { x, y in (UInt8((x * y) % 256), 90, UInt8(x)) }]
        return images.map { image in
            var page = Layer(frame: canvas.bounds)
            page.contents = picture(image)
            page.backgroundColor = canvas.background
            return page
        }
    }

    func frame(_ root: Layer) -> [UInt8] { bytes(Compositor(threads: 2).render(root, canvas: canvas)) }

    /// Checks that every step's progress 0 and 1 are pixel-equal to the screens' hold frames,
    /// and that its frame at `middle` shows neither.
    func check(_ transition: any Transition, middle progress: Double = 0.5) {
        let pages = pages()
        let screens = (0..<transition.screenCount(pages: pages.count)).map { transition.screen($0, pages: pages, bounds: canvas.bounds) }
        for step in 0..<(screens.count - 1) {
            let start = frame(transition.scene(step: step, progress: 0, pages: pages, bounds: canvas.bounds))
            let end = frame(transition.scene(step: step, progress: 1, pages: pages, bounds: canvas.bounds))
            let middle = frame(transition.scene(step: step, progress: progress, pages: pages, bounds: canvas.bounds))
            let first = frame(.root(canvas.bounds, [screens[step]])), second = frame(.root(canvas.bounds, [screens[step + 1]]))
            func differing(_ a: [UInt8], _ b: [UInt8]) -> Int { zip(a, b).filter { $0 != $1 }.count }
            #expect(differing(start, first) == 0, "\(transition) step \(step) at 0")
            #expect(differing(end, second) == 0, "\(transition) step \(step) at 1")
            #expect(differing(middle, first) > 0 && differing(middle, second) > 0, "\(transition) step \(step) at \(progress) shows a screen")
        }
    }
}

@Suite("Page transitions: ends, geometry")
struct PageTransitionTests {
    let bounds = Rect(x: 0, y: 0, width: 360, height: 640)

    @Test("progress 0 and 1 are pixel-equal to the hold frames", arguments: [
        StoriesCube() as any Transition, TelegramCube(), TelegramCube().with(TelegramCube.direction, .backward).with(TelegramCube.enterFirst, true),
        Crossfade(), Slide(), Slide().with(Slide.direction, .up), Flip(), Flip().with(Flip.axis, .horizontal).with(Flip.direction, .backward),
        Iris(), Iris().with(Iris.center, Point(x: 0.1, y: 0.9)),
    ])
    func ends(transition: any Transition) {
        EndCheck().check(transition)
    }

    func layers(_ root: Layer) -> [String: (corners: [Point], opacity: Double)] {
        Dictionary(uniqueKeysWithValues: root.drawList(scale: 1).map { ($0.name!, ($0.corners, $0.opacity)) })
    }

    @Test("telegram-cube: corners, anchors and alpha follow seed 003", arguments: [0.2, 0.5, 0.8])
    func telegram(progress: Double) throws {
        let (from, to) = colorPages(bounds)
        let cube = TelegramCube()
        let q = layers(cube.scene(from: from, to: to, progress: progress, bounds: bounds))
        let w = bounds.width, h = bounds.height
        // percent = (screen center - cell center) / width: p for the outgoing cell, p - 1 for the incoming.
        // Outgoing: anchor (1, 0.5) on its right edge, at x = w - p w on screen; incoming: anchor (0, 0.5) at the same x.
        let edge = w - progress * w
        func corner(angleFor percent: Double, dx: Double, dy: Double) -> Point {
            let a = percent * 60 * Double.pi / 180
            let x = dx * cos(a), z = -dx * sin(a), wh = 1 + z / 500
            return Point(x: edge + x / wh, y: h / 2 + dy / wh)
        }
        let outgoing = try #require(q["from"]), incoming = try #require(q["to"])
        let expectedOut = [corner(angleFor: progress, dx: -w, dy: -h / 2), corner(angleFor: progress, dx: 0, dy: -h / 2)]
        let expectedIn = [corner(angleFor: progress - 1, dx: 0, dy: -h / 2), corner(angleFor: progress - 1, dx: w, dy: -h / 2)]
        for (got, want) in zip(Array(outgoing.corners.prefix(2)) + Array(incoming.corners.prefix(2)), expectedOut + expectedIn) {
            #expect(close(got.x, want.x, 1e-9) && close(got.y, want.y, 1e-9), "\(got) != \(want)")
        }
        #expect(outgoing.opacity == 1)
        #expect(close(incoming.opacity, progress, 1e-12)) // 1 - clamp(1 - p, 0, 1)
    }

    @Test("telegram-cube backward: the next page enters from the left; the outgoing one fades")
    func telegramBackward() throws {
        let (from, to) = colorPages(bounds)
        let q = layers(TelegramCube().with(TelegramCube.direction, .backward).scene(from: from, to: to, progress: 0.25, bounds: bounds))
        let outgoing = try #require(q["from"]), incoming = try #require(q["to"])
        #expect(close(incoming.corners[1].x, 0.25 * bounds.width, 1e-9)) // its right edge, the anchor
        #expect(close(outgoing.corners[0].x, 0.25 * bounds.width, 1e-9))
        #expect(close(outgoing.opacity, 0.75, 1e-12) && incoming.opacity == 1)
    }

    @Test("telegram-cube enterFirst opens on an empty screen")
    func enterFirst() {
        let pages = EndCheck().pages()
        let cube = TelegramCube().with(TelegramCube.enterFirst, true)
        #expect(cube.screenCount(pages: 3) == 4)
        #expect(cube.screen(0, pages: pages, bounds: bounds).contents == nil && cube.screen(1, pages: pages, bounds: bounds).contents == pages[0].contents)
    }

    @Test("slide: the pages move edge to edge by progress x width", arguments: [Slide.Direction.left, .right, .up, .down])
    func slide(direction: Slide.Direction) throws {
        let (from, to) = colorPages(bounds)
        let q = layers(Slide().with(Slide.direction, direction).scene(from: from, to: to, progress: 0.3, bounds: bounds))
        let f = try #require(q["from"]).corners[0], t = try #require(q["to"]).corners[0]
        let (dx, dy): (Double, Double) = switch direction {
        case .left: (-360, 0)
        case .right: (360, 0)
        case .up: (0, -640)
        case .down: (0, 640)
        }
        #expect(close(f.x, 0.3 * dx) && close(f.y, 0.3 * dy) && close(t.x, -0.7 * dx) && close(t.y, -0.7 * dy))
    }

    @Test("flip: the outgoing page turns 180 p about its vertical axis, the incoming one 180 p - 180, each seen only from the front",
          arguments: [0.3, 0.7])
    func flip(progress: Double) throws {
        let (from, to) = colorPages(bounds)
        let q = layers(Flip().scene(from: from, to: to, progress: progress, bounds: bounds))
        // Remotion's flip from the left: 0 → 180° for the page leaving, -180° → 0 for the page coming.
        let visible = progress < 0.5 ? "from" : "to"
        let degrees = progress < 0.5 ? 180 * progress : 180 * progress - 180
        #expect(Set(q.keys) == [visible], "the page turned away is culled")
        let a = degrees * Double.pi / 180
        func corner(_ dx: Double, _ dy: Double) -> Point {
            // Row-vector rotation about y: x' = x cos a, z' = -x sin a; then m34 = -1/1000: w = 1 + x sin a / 1000.
            let w = 1 + dx * sin(a) / 1000
            return Point(x: 180 + dx * cos(a) / w, y: 320 + dy / w)
        }
        let expected = [corner(-180, -320), corner(180, -320), corner(180, 320), corner(-180, 320)]
        for (got, want) in zip(try #require(q[visible]).corners, expected) {
            #expect(close(got.x, want.x, 1e-9) && close(got.y, want.y, 1e-9), "\(got) != \(want)")
        }
        let horizontal = layers(Flip().with(Flip.axis, .horizontal).scene(from: from, to: to, progress: 0.25, bounds: bounds))
        let top = try #require(horizontal["from"]).corners
        #expect(close(top[0].y, top[1].y, 1e-9) && !close(top[0].x, -0.0 + top[3].x, 1e-3), "about the horizontal axis the top edge stays level")
    }

    @Test("iris: the next page shows inside a circle from the center to the farthest corner, its edge anti-aliased")
    func iris() throws {
        let canvas = Canvas(width: 90, height: 160, scale: 0.25, background: .black)
        let (from, to) = colorPages(canvas.bounds)
        let iris = Iris().with(Iris.center, Point(x: 0.25, y: 0.75))
        let (c, r) = iris.circle(0.5, bounds: canvas.bounds)
        // From (90, 480) points the farthest corner is (360, 0): half of hypot(270, 480).
        #expect(close(c.x, 90) && close(c.y, 480) && close(r, 0.5 * (270.0 * 270 + 480 * 480).squareRoot(), 1e-9))
        let frame = Compositor(threads: 1).render(iris.scene(from: from, to: to, progress: 0.5, bounds: canvas.bounds), canvas: canvas)
        let cx = c.x * 0.25, cy = c.y * 0.25, rp = r * 0.25
        func pixel(at angle: Double, _ distance: Double) -> UInt32 {
            frame[Int((cx + distance * cos(angle)).rounded(.down)), Int((cy + distance * sin(angle)).rounded(.down))]
        }
        for angle in [-1.5, -1.0, -0.5] {   // toward the top right, where the circle's edge is on the canvas
            #expect(blue(pixel(at: angle, rp - 2)) == 255 && red(pixel(at: angle, rp - 2)) == 0, "inside at \(angle)")
            #expect(red(pixel(at: angle, rp + 2)) == 255 && blue(pixel(at: angle, rp + 2)) == 0, "outside at \(angle)")
        }
        // Along the edge, pixels mix the two pages.
        let edge = (0..<160).map { y in frame[Int(cx), y] }.filter { red($0) > 0 && blue($0) > 0 }
        #expect(!edge.isEmpty && edge.count <= 2)
    }

    @Test("crossfade mixes the pages as from (1 - p) + to p")
    func crossfade() {
        let canvas = Canvas(width: 8, height: 8, scale: 1, background: .black)
        var from = Layer(frame: canvas.bounds), to = Layer(frame: canvas.bounds)
        from.backgroundColor = Color(red: 1, green: 0, blue: 0)
        to.backgroundColor = Color(red: 0, green: 0, blue: 1)
        let p = Compositor(threads: 1).render(Crossfade().scene(from: from, to: to, progress: 0.25, bounds: canvas.bounds), canvas: canvas)[4, 4]
        #expect(abs(red(p) - 191) <= 1 && abs(blue(p) - 64) <= 1)
    }
}

