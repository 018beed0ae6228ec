import Foundation
import Testing
@testable import Segue

/// Frames looked at closely: where faces meet, at sharp tips, at the camera, in colour, and
/// under a fading group.
@Suite("Flawless frames: seams, tips, the near plane, colour profiles, group opacity")
struct FlawlessFrameTests {
    static let canvas = Canvas(width: 180, height: 320, scale: 0.5, background: .black)

    /// Full-screen pages of flat grey levels.
    func pages(_ levels: [UInt8], gravity: ContentsGravity = .fill) -> [Layer] {
        levels.map { level in
            var page = Layer(frame: FlawlessFrameTests.canvas.bounds)
            page.contents = picture(makeImage(width: 36, height: 64) { _, _ in (level, level, level) })
            page.contentsGravity = gravity
            page.backgroundColor = FlawlessFrameTests.canvas.background
            return page
        }
    }

    /// The pixels along the middle of every edge two drawn polygons share that are darker
    /// (red channel) by more than 2 than both faces three pixels to either side: background
    /// showing through between them. Also returns how many shared edges were walked.
    static func seams(_ root: Layer, canvas: Canvas) -> (edges: Int, seams: [String]) {
        let frame = Compositor(threads: 2).render(root, canvas: canvas)
        let items = root.drawList(scale: canvas.scale)
        var edges = 0, seams: [String] = []
        func value(_ x: Double, _ y: Double) -> Int? {
            let px = Int(x.rounded(.down)), py = Int(y.rounded(.down))
            guard px >= 0, py >= 0, px < canvas.width, py < canvas.height else { return nil }
            return red(frame[px, py])
        }
        for j in items.indices {
            for i in 0..<j {
                guard let e = CompiledItem.sharedEdge(items[i].corners, items[j].corners) else { continue }
                let p = items[i].corners[e], q = items[i].corners[(e + 1) % items[i].corners.count]
                let length = ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
                guard length > 12 else { continue }
                edges += 1
                let (nx, ny) = (-(q.y - p.y) / length, (q.x - p.x) / length)
                for k in 0...Int(length * 4) {
                    let t = 0.15 + 0.7 * Double(k) / (length * 4)
                    let x = p.x + t * (q.x - p.x), y = p.y + t * (q.y - p.y)
                    guard let here = value(x, y), let a = value(x + 3 * nx, y + 3 * ny), let b = value(x - 3 * nx, y - 3 * ny) else { continue }
                    if here + 2 < min(a, b) { seams.append("(\(Int(x)), \(Int(y))): \(here) between \(a) and \(b)") }
                }
            }
        }
        return (edges, seams)
    }

    @Test("near-white faces meet without a darker line, at whole and fractional edge positions",
          arguments: [StoriesCube() as any Transition, TelegramCube(), TelegramCube().with(TelegramCube.direction, .backward),
                      Flip(), Flip().with(Flip.axis, .horizontal), CubeFold()])
    func noSeams(_ transition: any Transition) {
        let pages = pages([255, 250, 255, 250])
        let steps = transition.screenCount(pages: pages.count) - 1
        var walked = 0
        for step in 0..<steps {
            for progress in [0.1, 0.23, 0.37, 0.5, 0.61, 0.77, 0.9] {
                let scene = transition.scene(step: step, progress: progress, pages: pages, bounds: FlawlessFrameTests.canvas.bounds)
                let (edges, seams) = FlawlessFrameTests.seams(scene, canvas: FlawlessFrameTests.canvas)
                walked += edges
                #expect(seams.isEmpty, "\(type(of: transition).name) step \(step) at \(progress): \(seams.count) seam pixels, first \(seams.first ?? "")")
            }
        }
        if !(transition is Flip) { #expect(walked > 0, "no shared edge was found to look along") }
    }

    @Test("coverage ends at a sharp tip: a face seen nearly edge-on smears nothing past its corners")
    func sharpTips() {
        // A sliver 0.6 px wide and 280 px long with tips of about one degree.
        let corners = [Point(x: 50, y: 10), Point(x: 50.6, y: 40), Point(x: 50.6, y: 260), Point(x: 50, y: 290)]
        let polygon = PreparedPolygon(corners: corners, opacity: 1, canvasHeight: 300)!
        let width = 100, height = 300
        let frame = UnsafeMutablePointer<UInt32>.allocate(capacity: width * height)
        frame.initialize(repeating: 0, count: width * height)
        defer { frame.deallocate() }
        polygon.draw(SolidSource(pixel: 0xFFFF_FFFF), into: frame, width: width, band: 0..<height)
        var outside = 0, covered = 0.0
        for y in 0..<height {
            for x in 0..<width where frame[y * width + x] != 0 {
                covered += Double(frame[y * width + x] >> 24) / 255
                if y < 10 || y >= 290 || x < 50 || x > 50 { outside += 1 }
            }
        }
        #expect(outside == 0, "\(outside) pixels drawn past the sliver's corners")
        let area = abs(signedArea(corners)) / 2
        #expect(abs(covered - area) < 0.02 * area + 1, "coverage \(covered) for an area of \(area)")
    }

    @Test("two rectangles that share an edge cover each of its pixels exactly once, at any fraction")
    func sharedEdgeExact() {
        for edge in stride(from: 40.0, through: 41.0, by: 0.125) {
            let left = [Point(x: 10, y: 10), Point(x: edge, y: 10), Point(x: edge, y: 50), Point(x: 10, y: 50)]
            let right = [Point(x: edge, y: 10), Point(x: 80, y: 10), Point(x: 80, y: 50), Point(x: edge, y: 50)]
            let white = Image(width: 1, height: 1, pixels: [0xFFFF_FFFF])
            let items = [left, right].map { DrawItem(corners: $0, paint: .image(white, source: (0, 0, 1, 1), toTexel: Homography(mapping: Rect(x: 0, y: 0, width: 100, height: 100), to: Rect(x: 0, y: 0, width: 1, height: 1))), opacity: 1) }
            let compiled = CompiledItem.compile(items, canvas: Canvas(width: 100, height: 60, scale: 1))
            let frame = UnsafeMutablePointer<UInt32>.allocate(capacity: 6000)
            frame.initialize(repeating: 0xFF00_0000, count: 6000)
            defer { frame.deallocate() }
            for item in compiled { item.draw(into: frame, width: 100, band: 0..<60) }
            for x in 30..<60 { #expect(frame[30 * 100 + x] == 0xFFFF_FFFF, "edge at \(edge): pixel \(x) is \(String(frame[30 * 100 + x], radix: 16))") }
        }
    }

    @Test("a layer crossing the camera plane is cut along the near plane, at hand-computed corners")
    func nearPlane() throws {
        // w = 1 + 0.03 y' (y' from the anchor, -50...50): the top of the layer reaches behind the eye.
        var layer = Layer(frame: Rect(x: 50, y: 50, width: 100, height: 100))
        layer.transform = Transform3D(m11: 1, m12: 0, m13: 0, m14: 0, m21: 0, m22: 1, m23: 0, m24: 0.03,
                                      m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)
        layer.backgroundColor = .white
        let root = Layer.root(Rect(x: 0, y: 0, width: 200, height: 200), [layer])
        let corners = try #require(root.drawList(scale: 1).first?.corners)
        // Cut where w = 1/1024: y' = (1/1024 - 1) / 0.03; there x' / w and y' / w are 1024 x' and 1024 y'.
        let cut = (1.0 / 1024 - 1) / 0.03
        let expected = [Point(x: 100 + 50 * 1024, y: 100 + cut * 1024), Point(x: 100 + 50 / 2.5, y: 100 + 50 / 2.5),
                        Point(x: 100 - 50 / 2.5, y: 100 + 50 / 2.5), Point(x: 100 - 50 * 1024, y: 100 + cut * 1024)]
        #expect(corners.count == 4)
        for (a, b) in zip(corners, expected) {
            #expect(close(a.x, b.x, 1e-6 * max(1, abs(b.x))) && close(a.y, b.y, 1e-6 * max(1, abs(b.y))), "\(a) is not \(b)")
        }
        let frame = Compositor(threads: 1).render(root, canvas: Canvas(width: 200, height: 200, scale: 1))
        #expect(red(frame[100, 110]) == 255 && red(frame[5, 5]) == 255, "the part in front is drawn")
        #expect(red(frame[100, 130]) == 0 && red(frame[5, 100]) == 0, "nothing past its near edge")
    }

    @Test("cube-fold with a cube larger than the camera distance draws the cut faces, not a black frame")
    func cubeAroundTheCamera() throws {
        let preset = try Preset.load("cube-fold", overrides: ["canvas.size=[180, 320]", "canvas.scale=0.5", "transition.side=600"])
        let folder = temporaryFolder().appendingPathComponent("frames").path
        let job = try Job(preset: preset, inputs: [example("a.jpg"), example("b.png"), example("c.webp")], output: folder,
                          frames: FrameSelection(ranges: [90...90]), threads: 2)
        try Exporter.run(job)
        let frame = try Image.decode(path: folder + "/frame-00090.png")
        let lit = (0..<frame.height).reduce(0) { sum, y in sum + (0..<frame.width).filter { x in frame[x, y] & 0xFFFFFF != 0 }.count }
        #expect(lit > frame.width * frame.height / 10, "only \(lit) pixels are not black")
    }

    @Test("a cube much larger than the camera distance is drawn as convex pieces only, never as bow-ties")
    func noBowTies() throws {
        let cube = CubeFold().with(CubeFold.side, 2000).with(CubeFold.perspective, 100)
        let bounds = Rect(x: 0, y: 0, width: 360, height: 640)
        let pages = (0..<3).map { i -> Layer in
            var page = Layer(frame: bounds)
            page.contents = picture(makeImage(width: 9, height: 16) { _, _ in (UInt8(60 * i), 200, 90) })
            return page
        }
        var drawn = 0
        for step in 0..<(cube.screenCount(pages: pages.count) - 1) {
            for progress in stride(from: 0.0, through: 1.0, by: 0.05) {
                for item in cube.scene(step: step, progress: progress, pages: pages, bounds: bounds).drawList(scale: 0.5) {
                    let p = item.corners
                    let turns = p.indices.map { i -> Double in
                        let a = p[i], b = p[(i + 1) % p.count], c = p[(i + 2) % p.count]
                        return (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
                    }
                    let scale = p.map { max(abs($0.x), abs($0.y)) }.max()!
                    let tolerance = 1e-9 * scale * scale
                    #expect(turns.allSatisfy { $0 >= -tolerance } || turns.allSatisfy { $0 <= tolerance },
                            "step \(step) at \(progress): \(item.name ?? "a face") is not convex: \(p)")
                    drawn += 1
                }
            }
        }
        #expect(drawn > 0)
    }

    let letterboxCanvas = Canvas(width: 90, height: 160, scale: 0.25, background: Color(red: 0.1, green: 0.3, blue: 0.8))

    /// Two landscape pictures fitted (letterboxed) into full-screen pages of `background`.
    func letterboxedPages(background: Color) -> [Layer] {
        let images = [makeImage(width: 160, height: 90) { x, y in (UInt8(100 + x / 2), UInt8(y * 2), 40) },
                      makeImage(width: 160, height: 100) { x, y in (30, UInt8(250 - y), UInt8(x)) }]
        return images.map { image -> Layer in
            var page = Layer(frame: letterboxCanvas.bounds)
            page.contents = picture(image)
            page.contentsGravity = .fit
            page.backgroundColor = background
            return page
        }
    }

    @Test("a fading layer whose pieces overlap fades as one: a crossfade of letterboxed pictures is (1 - p) A + p B")
    func groupOpacity() {
        let canvas = letterboxCanvas
        let pages = letterboxedPages(background: canvas.background)
        let compositor = Compositor(threads: 2)
        let a = compositor.render(.root(canvas.bounds, [pages[0]]), canvas: canvas)
        let b = compositor.render(.root(canvas.bounds, [pages[1]]), canvas: canvas)
        for p in [0.25, 0.5, 0.8] {
            let mixed = compositor.render(Crossfade().scene(from: pages[0], to: pages[1], progress: p, bounds: canvas.bounds), canvas: canvas)
            var worst = 0
            for (i, value) in mixed.bytes.enumerated() {
                let expected = (1 - p) * Double(a.bytes[i]) + p * Double(b.bytes[i])
                worst = max(worst, Int(abs(Double(value) - expected).rounded(.up)))
            }
            #expect(worst <= 2, "at \(p) a channel is off by \(worst)")
        }
    }

    @Test("groups inside groups, drawn by a compositor that keeps its band buffers from frame to frame, equal each frame drawn afresh")
    func groupBuffersReused() {
        let canvas = letterboxCanvas
        let pages = letterboxedPages(background: Color(red: 0.9, green: 0.8, blue: 0.1))
        // A fading holder of a fading letterboxed page and a smaller square: a group within a group.
        func scene(_ p: Double) -> Layer {
            var inner = pages[p < 0.5 ? 0 : 1]
            inner.opacity = 0.4 + p / 2
            var square = Layer(frame: Rect(x: 5, y: 30, width: 12, height: 12))
            square.backgroundColor = Color(red: 0.2, green: 0.9, blue: 0.3)
            var holder = Layer(frame: canvas.bounds)
            holder.sublayers = [inner, square]
            holder.opacity = 0.9 - p / 2
            return .root(canvas.bounds, [holder])
        }
        let items = scene(0.3).drawList(scale: canvas.scale)
        guard case .group(let members) = items.last?.paint, members.contains(where: { if case .group = $0.paint { true } else { false } }) else {
            Issue.record("the scene should fade as a group holding a group: \(items.map(\.paint))")
            return
        }
        // Each frame drawn item by item, band by band, each group into a buffer of its own.
        func reference(_ p: Double) -> [UInt8] {
            let compiled = CompiledItem.compile(scene(p).drawList(scale: canvas.scale), canvas: canvas)
            var pixels = [UInt32](repeating: canvas.background.premultipliedPixel, count: canvas.width * canvas.height)
            pixels.withUnsafeMutableBufferPointer { frame in
                for top in stride(from: 0, to: canvas.height, by: Compositor.bandHeight) {
                    let band = top..<min(canvas.height, top + Compositor.bandHeight)
                    for item in compiled { item.draw(into: frame.baseAddress!, width: canvas.width, band: band) }
                }
            }
            return pixels.withUnsafeBytes { Array($0) }
        }
        for threads in [1, 2, 3] {
            let kept = Compositor(threads: threads)
            for p in [0.1, 0.3, 0.6, 0.9, 0.3, 0.1] {
                #expect(kept.render(scene(p), canvas: canvas).bytes == reference(p), "\(threads) threads, at \(p)")
            }
        }
    }

    @Test("a layer that fades with pieces side by side is not drawn apart (no offscreen buffer)")
    func groupOnlyWhenNeeded() {
        var page = pages([200], gravity: .fill)[0]
        page.opacity = 0.5
        let items = Layer.root(FlawlessFrameTests.canvas.bounds, [page]).drawList(scale: 0.5)
        #expect(items.count == 1)
        if case .group = items[0].paint { Issue.record("one picture over its whole page needs no group") }
        var letterboxed = page
        letterboxed.contents = picture(makeImage(width: 64, height: 36) { _, _ in (9, 9, 9) })
        letterboxed.contentsGravity = .fit
        let grouped = Layer.root(FlawlessFrameTests.canvas.bounds, [letterboxed]).drawList(scale: 0.5)
        #expect(grouped.count == 1 && grouped[0].opacity == 0.5)
        if case .group(let members) = grouped[0].paint { #expect(members.count == 2) } else { Issue.record("a letterboxed page fades as a group") }
    }
}
