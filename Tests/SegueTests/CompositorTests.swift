import CSegueKernels
import Foundation
import Testing
@testable import Segue

@Suite("Compositor")
struct CompositorTests {
    let canvas = Canvas(width: 90, height: 160, scale: 0.25, background: .black)

    func storiesScene(progress: Double) -> Layer {
        let a = makeImage(width: 90, height: 160) { x, y in (UInt8(x * 2), UInt8(y), 200) }
        let b = makeImage(width: 90, height: 160) { x, y in ((x / 10 + y / 10) % 2 == 0 ? 255 : 20, 120, UInt8(x)) }
        var from = Layer(frame: canvas.bounds), to = Layer(frame: canvas.bounds)
        from.contents = picture(a)
        to.contents = picture(b)
        return StoriesCube().scene(from: from, to: to, progress: progress, bounds: canvas.bounds)
    }

    func storiesFrame(progress: Double, threads: Int) -> FrameBuffer {
        Compositor(threads: threads).render(storiesScene(progress: progress), canvas: canvas)
    }

    @Test("1, 2 and 8 threads give byte-identical frames", arguments: [0.13, 0.5, 0.87])
    func threadsAgree(progress: Double) {
        let one = bytes(storiesFrame(progress: progress, threads: 1))
        #expect(bytes(storiesFrame(progress: progress, threads: 2)) == one)
        #expect(bytes(storiesFrame(progress: progress, threads: 8)) == one)
    }

    @Test("a frame kept only in yuv420p, written band by band while drawing, equals the finished frame converted whole, for any threads")
    func yuvWhileDrawing() throws {
        // 150 rows: the last band is shorter than the others.
        let canvas = Canvas(width: 90, height: 150, scale: 0.25, background: .black)
        let a = makeImage(width: 90, height: 150) { x, y in (UInt8(x * 2), UInt8(y), 200) }
        let b = makeImage(width: 90, height: 150) { x, y in ((x / 10 + y / 10) % 2 == 0 ? 255 : 20, 120, UInt8(x)) }
        var from = Layer(frame: canvas.bounds), to = Layer(frame: canvas.bounds)
        from.contents = picture(a)
        to.contents = picture(b)
        func planes(_ yuv: YUVFrame) -> [UInt8] { var out: [UInt8] = []; yuv.append(to: &out); return out }
        for progress in [0.0, 0.37, 0.81] {
            let scene = StoriesCube().scene(from: from, to: to, progress: progress, bounds: canvas.bounds)
            let plain = FrameBuffer(width: canvas.width, height: canvas.height)
            try Compositor(threads: 1).render(scene, canvas: canvas, pictures: TestPictures.cache, into: plain)
            var spare: YUVFrame?
            let whole = planes(try plain.yuv420p(spare: &spare, for: "test"))
            #expect(whole.count == 90 * 150 * 3 / 2)
            for compositor in [Compositor(threads: 1), Compositor(threads: 3)] {
                // Kept only in yuv420p: each band drawn in scratch, converted and dropped.
                let frame = FrameBuffer(width: canvas.width, height: canvas.height, yuv: try YUVFrame(width: 90, height: 150, for: "test"))
                #expect(!frame.keepsPixels)
                // Drawn twice: the second drawing overwrites every byte of the first's copy.
                for _ in 0..<2 {
                    try frame.yuv!.prepare(for: "test")
                    try compositor.render(scene, canvas: canvas, pictures: TestPictures.cache, into: frame)
                }
                #expect(planes(frame.yuv!) == whole, "progress \(progress), \(compositor.threads) threads")
                var unused: YUVFrame?
                #expect(try frame.yuv420p(spare: &unused, for: "test") === frame.yuv && unused == nil)
            }
        }
    }

    @Test("a translucent color laid over a row in C gives blendPixel's bytes, at every length (vector tails) and alpha")
    func colorOverRow() {
        var random = SystemRandomNumberGenerator()
        for alpha: UInt32 in [0, 1, 77, 128, 254, 255] {
            for count in [0, 1, 7, 15, 16, 17, 33, 64, 1080] {
                // A premultiplied color: no channel above its alpha.
                let channels = (0..<3).map { _ in UInt32.random(in: 0...alpha, using: &random) }
                let color = channels[0] | channels[1] << 8 | channels[2] << 16 | alpha << 24
                let row = (0..<count).map { _ in
                    let a = UInt32.random(in: 0...255, using: &random)
                    return (0..<3).reduce(a << 24) { $0 | UInt32.random(in: 0...a, using: &random) << (8 * $1) }
                }
                // One pixel either side, which must stay as they are.
                var drawn = [0xDEAD_BEEF] + row + [0xDEAD_BEEF]
                drawn.withUnsafeMutableBufferPointer { segue_blend_color_row($0.baseAddress! + 1, Int32(count), color) }
                #expect(drawn == [0xDEAD_BEEF] + row.map { blendPixel(color, over: $0) } + [0xDEAD_BEEF], "alpha \(alpha), \(count) pixels")
            }
        }
    }

    @Test("frames for the null sink are drawn and dropped, keeping neither pixels nor a yuv420p copy; other sinks get what they read")
    func framesAsSinksRead() throws {
        #expect(NullSink().reads == .none)
        for (form, pixels, yuv) in [(FrameForm.rgba, true, false), (.yuv420p, false, true), (FrameForm.none, false, false)] {
            let frame = try FrameBuffer(width: 90, height: 160, readAs: form, for: "test")
            #expect(frame.keepsPixels == pixels && (frame.yuv != nil) == yuv, "\(form)")
            try frame.yuv?.prepare(for: "test")
            // Drawn band by band whatever is kept of it.
            try Compositor(threads: 2).render(storiesScene(progress: 0.4), canvas: canvas, pictures: TestPictures.cache, into: frame)
        }
    }

    @Test("no pixel depends on what the frame held before: the background is left out only under opaque faces",
          arguments: TransitionRegistry.all.map { $0.init(ParameterValues()) as any Transition })
    func leftoversNeverShow(_ transition: any Transition) {
        // Pictures of different sizes and shapes: faces fill, fit and tilt at fractional edges.
        let images = [makeImage(width: 90, height: 160) { x, y in (UInt8(x * 2), UInt8(y), 200) },
                      makeImage(width: 120, height: 70) { x, y in (UInt8(y * 3), UInt8(x * 2), 40) },
                      makeImage(width: 45, height: 80) { x, y in ((x / 5 + y / 5) % 2 == 0 ? 250 : 10, 90, UInt8(x * 5)) }]
        let pages = images.enumerated().map { i, image in
            var page = Layer(frame: canvas.bounds)
            page.contents = picture(image)
            page.contentsGravity = i == 1 ? .fit : .fill
            return page
        }
        let steps = transition.screenCount(pages: pages.count) - 1
        for step in 0..<steps {
            for progress in [0, 0.07, 0.31, 0.5, 0.74, 0.96] {
                let scene = transition.scene(step: step, progress: progress, pages: pages, bounds: canvas.bounds)
                let fresh = Compositor(threads: 2).render(scene, canvas: canvas)
                for leftover: UInt32 in [0x7F3A_91C5, 0xFFFF_FFFF] {
                    let reused = FrameBuffer(width: canvas.width, height: canvas.height)
                    reused.pixels.update(repeating: leftover, count: canvas.width * canvas.height)
                    try! Compositor(threads: 2).render(scene, canvas: canvas, pictures: TestPictures.cache, into: reused)
                    let differing = zip(bytes(fresh), bytes(reused)).filter { $0 != $1 }.count
                    #expect(differing == 0, "\(type(of: transition).name) step \(step) at \(progress): \(differing) bytes show the frame's old \(String(leftover, radix: 16))")
                }
            }
        }
    }

    @Test("an image at its own pixel size is copied exactly")
    func exactCopy() {
        let image = makeImage(width: 90, height: 160) { x, y in (UInt8(x), UInt8(y), UInt8((x * y) % 256)) }
        var page = Layer(frame: canvas.bounds)
        page.contents = picture(image)
        let frame = Compositor(threads: 2).render(.root(canvas.bounds, [page]), canvas: canvas)
        #expect(frame.image().pixels == image.pixels)
    }

    @Test("edges are anti-aliased: a rectangle ending mid-pixel covers that pixel by half")
    func antiAliasedEdge() {
        let canvas = Canvas(width: 10, height: 10, scale: 1, background: .black)
        var rect = Layer(frame: Rect(x: 2, y: 2, width: 3.5, height: 4))
        rect.backgroundColor = .white
        let frame = Compositor(threads: 1).render(.root(canvas.bounds, [rect]), canvas: canvas)
        #expect(red(frame[3, 3]) == 255 && red(frame[4, 3]) == 255)
        #expect(abs(red(frame[5, 3]) - 128) <= 1)
        #expect(red(frame[6, 3]) == 0 && red(frame[1, 3]) == 0 && red(frame[3, 6]) == 0)
        #expect((0..<100).allSatisfy { alpha(frame[$0 % 10, $0 / 10]) == 255 })
    }

    @Test("opacity blends source-over the background")
    func opacity() {
        let canvas = Canvas(width: 4, height: 4, scale: 1, background: Color(red: 0, green: 0, blue: 1))
        var rect = Layer(frame: canvas.bounds)
        rect.backgroundColor = Color(red: 1, green: 0, blue: 0)
        rect.opacity = 0.25
        let p = Compositor(threads: 1).render(.root(canvas.bounds, [rect]), canvas: canvas)[1, 1]
        #expect(abs(red(p) - 64) <= 1 && abs(blue(p) - 191) <= 1 && alpha(p) == 255)
    }

    @Test("texture mapping is perspective-correct")
    func perspectiveCorrect() throws {
        // Left half red, right half blue, on a page turned 60° about its left edge with a strong
        // perspective. The red/blue border must sit where the page's middle line projects,
        // not halfway between the projected edges (where an affine mapping would put it).
        let canvas = Canvas(width: 200, height: 200, scale: 1, background: .black)
        var page = Layer(frame: Rect(x: 20, y: 20, width: 160, height: 160), anchorPoint: Point(x: 0, y: 0.5))
        page.contents = picture(makeImage(width: 160, height: 160) { x, _ in x < 80 ? (255, 0, 0) : (0, 0, 255) })
        page.contentsGravity = .stretch
        page.transform = Transform3D.perspective(m34: -1.0 / 200).rotated(by: .pi / 3, x: 0, y: 1, z: 0)
        let root = Layer.root(canvas.bounds, [page])
        let quad = try #require(root.drawList(scale: 1).first)
        let middle = page.placement.project(Point(x: 80, y: 80)).x
        let affineMiddle = (quad.corners[0].x + quad.corners[1].x) / 2
        #expect(abs(middle - affineMiddle) > 5)
        let frame = Compositor(threads: 1).render(root, canvas: canvas)
        let y = 100
        #expect(red(frame[Int(middle) - 2, y]) > 200 && blue(frame[Int(middle) - 2, y]) < 50)
        #expect(blue(frame[Int(middle) + 2, y]) > 200 && red(frame[Int(middle) + 2, y]) < 50)
    }

    @Test("progress 0 and 1 are pixel-equal to the hold frames")
    func endsEqualHolds() {
        let a = makeImage(width: 90, height: 160) { x, y in (UInt8(x * 2), UInt8(y), 200) }
        let b = makeImage(width: 90, height: 160) { x, y in (UInt8(y), UInt8(x), 30) }
        var from = Layer(frame: canvas.bounds), to = Layer(frame: canvas.bounds)
        from.contents = picture(a)
        to.contents = picture(b)
        let compositor = Compositor(threads: 2)
        let holdA = bytes(compositor.render(.root(canvas.bounds, [from]), canvas: canvas))
        let holdB = bytes(compositor.render(.root(canvas.bounds, [to]), canvas: canvas))
        let cube = StoriesCube()
        #expect(bytes(compositor.render(cube.scene(from: from, to: to, progress: 0, bounds: canvas.bounds), canvas: canvas)) == holdA)
        #expect(bytes(compositor.render(cube.scene(from: from, to: to, progress: 1, bounds: canvas.bounds), canvas: canvas)) == holdB)
        #expect(bytes(compositor.render(cube.scene(from: from, to: to, progress: 0.01, bounds: canvas.bounds), canvas: canvas)) != holdA)
    }
}
