import CSegueKernels
import Dispatch
import Synchronization

/// Draws layer trees into frames. The frame is cut into bands of rows that are drawn in
/// parallel with `DispatchQueue.concurrentPerform`; no two bands share a pixel, and every
/// pixel is computed the same way whatever the banding, so the output is byte-identical
/// for any number of threads. (An export, which draws many frames, composes several at
/// once instead, each with a one-thread compositor: see `Exporter`.)
public struct Compositor: Sendable {
    /// How many bands are drawn at once (at most the machine's cores run in parallel).
    public var threads: Int
    /// Rows in a band: small enough to balance uneven rows, large enough to amortise; even,
    /// so that a band's yuv420p rows are its own (chroma comes from pairs of rows).
    public static let bandHeight = 16
    /// The workers' band buffers, kept from frame to frame.
    let spares = SpareBuffers()

    public init(threads: Int = 2) {
        precondition(threads >= 1)
        self.threads = threads
    }

    /// Draws `root` (laid out in the canvas's points) over the canvas background into
    /// `frame`, its pictures resolved through `pictures`; a frame kept only in yuv420p gets
    /// its (prepared) copy written band by band.
    public func render(_ root: Layer, canvas: Canvas, pictures: PictureCache, into frame: FrameBuffer) throws {
        render(try root.drawList(scale: canvas.scale, pictures: pictures), canvas: canvas, into: frame)
    }

    /// Draws a scene's draw list (its pictures already resolved) into `frame`.
    func render(_ list: [DrawItem], canvas: Canvas, into frame: FrameBuffer) {
        precondition(frame.width == canvas.width && frame.height == canvas.height, "frame and canvas differ in size")
        let yuv = frame.yuv?.planes
        precondition(frame.yuv == nil || yuv != nil, "a frame kept only in yuv420p, its copy not prepared")
        draw(list, canvas: canvas, into: frame.keepsPixels ? frame : nil) { rows, pixels in
            if let yuv { frame.convert(rows: rows, from: pixels, to: yuv) }
        }
    }

    /// Draws `list` band by band, each into `target`'s pixels or (no target) a band-sized
    /// scratch buffer, then hands the band to `done` with where its rows are addressed from
    /// (the target's pixels, or the scratch buffer placed so that the band's first row is its first).
    func draw(_ list: [DrawItem], canvas: Canvas, into target: FrameBuffer?,
              done: @escaping @Sendable (Range<Int>, UnsafeMutablePointer<UInt32>) -> Void) {
        let frame = CompiledFrame(list, canvas: canvas, compositor: self)
        forEachBand(of: canvas) { rows, buffers in
            let pixels = target?.pixels ?? buffers.buffer(0) - rows.lowerBound * canvas.width
            frame.draw(rows: rows, into: pixels, width: canvas.width, buffers: buffers)
            done(rows, pixels)
        }
        frame.giveBack(to: spares)
    }

    /// Calls `body` for the rows of each band of `canvas`, with a worker's band buffers (the
    /// first its scratch band, the others layer groups', one for each depth of nesting), on
    /// `threads` workers.
    func forEachBand(of canvas: Canvas, _ body: @escaping @Sendable (Range<Int>, BandBuffers) -> Void) {
        let bands = (canvas.height + Compositor.bandHeight - 1) / Compositor.bandHeight
        let workers = min(threads, bands)
        let bandPixels = canvas.width * Compositor.bandHeight
        let rows: @Sendable (Int) -> Range<Int> = { band in band * Compositor.bandHeight..<min(canvas.height, (band + 1) * Compositor.bandHeight) }
        let spares = self.spares
        let withBuffers: @Sendable ((BandBuffers) -> Void) -> Void = { body in
            let buffers = spares.take(capacity: bandPixels)
            defer { spares.give(buffers) }
            body(buffers)
        }
        if workers == 1 {
            withBuffers { buffers in for band in 0..<bands { body(rows(band), buffers) } }
        } else {
            // Each worker takes the next band not yet taken: a worker that starts late (a
            // thread waking up) or runs slower leaves more bands to the others instead of
            // keeping them waiting for its share.
            let next = Atomic<Int>(0)
            let work: @Sendable () -> Void = {
                withBuffers { buffers in
                    while true {
                        let band = next.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard band < bands else { return }
                        body(rows(band), buffers)
                    }
                }
            }
            DispatchQueue.concurrentPerform(iterations: workers) { _ in work() }
        }
    }

    /// Fills `rows` with the background, except the columns wholly inside one of `covers`
    /// on all of them (they are drawn over whatever lies under them, so a fill there would
    /// never show).
    static func fill(_ frame: UnsafeMutablePointer<UInt32>, width: Int, rows: Range<Int>, with background: UInt32,
                     around covers: [PreparedPolygon]) {
        var spans: [Range<Int>] = []
        for i in covers.indices {
            if let span = covers[i].innerColumns(band: rows, width: width) { spans.append(span) }
        }
        guard !spans.isEmpty else {
            segue_fill(frame + rows.lowerBound * width, rows.count * width, background)
            return
        }
        // The columns left uncovered, in order.
        spans.sort { $0.lowerBound < $1.lowerBound }
        var gaps: [Range<Int>] = []
        var x = 0
        for span in spans {
            if span.lowerBound > x { gaps.append(x..<span.lowerBound) }
            x = max(x, span.upperBound)
        }
        if x < width { gaps.append(x..<width) }
        for y in rows {
            for gap in gaps { segue_fill(frame + y * width + gap.lowerBound, gap.count, background) }
        }
    }

    /// A per-pixel transition's page: `items` drawn over a transparent canvas into a picture
    /// of their own. A kept picture that already holds the same drawing (a still page, as most
    /// are, from one frame to the next) is used as it is.
    func offscreen(_ items: [DrawItem], canvas: Canvas) -> KeptPage {
        var clear = canvas
        clear.background = .clear
        let (page, drawn) = spares.page(width: canvas.width, height: canvas.height, drawing: items)
        if !drawn { render(items, canvas: clear, into: page) }
        return KeptPage(picture: page, drawing: items)
    }

    /// Renders into a new frame.
    public func render(_ root: Layer, canvas: Canvas, pictures: PictureCache) throws -> FrameBuffer {
        let frame = FrameBuffer(width: canvas.width, height: canvas.height)
        try render(root, canvas: canvas, pictures: pictures, into: frame)
        return frame
    }
}

/// A draw list compiled for the bands of a canvas (`CompiledItem.compile`): its items, the
/// polygons among them that cover what is under them, and the background.
struct CompiledFrame: Sendable {
    let items: [CompiledItem]
    let covers: [PreparedPolygon]
    let background: UInt32

    init(_ list: [DrawItem], canvas: Canvas, compositor: Compositor) {
        items = CompiledItem.compile(list, canvas: canvas, compositor: compositor)
        // Polygons that replace the pixels wholly inside them: no background is needed there.
        covers = items.compactMap(\.cover)
        background = canvas.background.premultipliedPixel
    }

    /// Draws the band `rows` into `pixels` (addressed from the frame's first row).
    func draw(rows: Range<Int>, into pixels: UnsafeMutablePointer<UInt32>, width: Int, buffers: BandBuffers) {
        // What lies under an item that paints every pixel of the band opaquely is never
        // seen: drawing starts there (a full-screen page or picture), the background too.
        let top = items.lastIndex { $0.hides(rows: rows, width: width) }
        if top == nil {
            Compositor.fill(pixels, width: width, rows: rows, with: background, around: covers)
        }
        for item in items[(top ?? 0)...] { item.draw(into: pixels, width: width, band: rows, buffers: buffers, depth: 1) }
    }

    /// The per-pixel transitions' pages, for the next frame's.
    func giveBack(to spares: SpareBuffers) {
        for case .pixels(_, _, let pages, let mixed, _) in items {
            spares.give(pages: pages)
            if let mixed { spares.give(mix: mixed) }
        }
    }
}

/// A drawn item ready for the rows of any band: a polygon with its pixel source, or a
/// group drawn apart and composited once.
enum CompiledItem: Sendable {
    case polygon(CompiledQuad)
    case group(items: [CompiledItem], rows: Range<Int>, columns: Range<Int>, k: UInt32, blend: BlendMode)
    /// A per-pixel transition's rows, written from its two pages' pictures (kept alive here),
    /// laid over the frame at opacity k / 256.
    /// `mixed` is the pages' mix where the transition reads them mixed (`PixelMixer.premix`).
    case pixels(PixelRows, pages: PagePictures, pictures: [KeptPage], mixed: FrameBuffer?, k: UInt32)

    /// Prepares `items` for drawing on `canvas`, edges they share joined (see
    /// `joinSharedEdges`); items with no area on the canvas are left out. A per-pixel
    /// transition's pages are drawn here, by `compositor`, before any band.
    static func compile(_ items: [DrawItem], canvas: Canvas, compositor: Compositor = Compositor(threads: 1)) -> [CompiledItem] {
        var items = items
        var polygons = items.map { PreparedPolygon(corners: $0.corners, opacity: $0.opacity, canvasHeight: canvas.height) }
        joinSharedEdges(&items, &polygons, canvasHeight: canvas.height)
        return zip(items, polygons).compactMap { item, polygon -> CompiledItem? in
            guard let polygon else { return nil }
            if case .group(let members) = item.paint {
                let xs = item.corners.map(\.x)
                let columns = max(0, Int(xs.min()!.rounded(.down)) - 2)..<min(canvas.width, Int(xs.max()!.rounded(.up)) + 2)
                let k = UInt32((min(max(item.opacity, 0), 1) * 256).rounded())
                guard !columns.isEmpty, k > 0 else { return nil }
                let rows = max(0, polygon.rows.lowerBound - 2)..<min(canvas.height, polygon.rows.upperBound + 2)
                return .group(items: compile(members, canvas: canvas, compositor: compositor), rows: rows, columns: columns, k: k, blend: item.blend)
            }
            if case .pixels(let mix, let from, let to) = item.paint {
                let k = UInt32((min(max(item.opacity, 0), 1) * 256).rounded())
                guard k > 0 else { return nil }
                let a = compositor.offscreen(from, canvas: canvas), b = compositor.offscreen(to, canvas: canvas)
                var pages = PagePictures(a: UnsafePointer(a.picture.pixels), b: UnsafePointer(b.picture.pixels),
                                         width: canvas.width, height: canvas.height)
                var mixed: FrameBuffer?
                if let weight = mix.mixer.premix(progress: mix.progress) {
                    (pages, mixed) = pages.premixed(weight, threads: compositor.threads) { compositor.spares.mix(width: canvas.width, height: canvas.height) }
                }
                return .pixels(mix.mixer.rows(progress: mix.progress, width: canvas.width, height: canvas.height),
                               pages: pages, pictures: [a, b], mixed: mixed, k: k)
            }
            return .polygon(CompiledQuad(quad: polygon, paint: item.paint, masks: item.masks, canvas: canvas))
        }
    }

    /// Where two polygons meet along an edge, each edge pixel is covered partly by one and
    /// partly by the other; drawn one after the other, each would let its uncovered part of
    /// the background through, and a faint line of it would show along the edge. So the
    /// polygon drawn first reaches one pixel past the shared edge, under the one drawn
    /// second, which must hide it wholly there: opaque, at full opacity, unmasked. When only
    /// the first of two neighbours in paint order is such, the two change places (they do not
    /// overlap, lying on either side of the edge, so their order shows nowhere else).
    static func joinSharedEdges(_ items: inout [DrawItem], _ polygons: inout [PreparedPolygon?], canvasHeight: Int) {
        func hides(_ i: Int) -> Bool {
            guard polygons[i] != nil else { return false }
            return items[i].paint.isOpaque && items[i].opacity >= 1 && items[i].masks.isEmpty
        }
        func isPolygon(_ i: Int) -> Bool {
            if case .group = items[i].paint { return false }
            if case .pixels = items[i].paint { return false }
            return polygons[i] != nil
        }
        for i in items.indices.dropLast() where hides(i) && !hides(i + 1) && isPolygon(i + 1) {
            if sharedEdge(items[i].corners, items[i + 1].corners) != nil {
                items.swapAt(i, i + 1)
                polygons.swapAt(i, i + 1)
            }
        }
        for j in items.indices where hides(j) {
            for i in 0..<j where isPolygon(i) {
                if let edge = sharedEdge(items[i].corners, items[j].corners) {
                    polygons[i]!.extend(edge: edge, by: 1, canvasHeight: canvasHeight)
                }
            }
        }
    }

    /// The edge of `a` (its index: from corner e to e + 1) that is also an edge of `b`, with
    /// the two polygons on either side of it.
    static func sharedEdge(_ a: [Point], _ b: [Point]) -> Int? {
        let tolerance = 1e-3
        func near(_ p: Point, _ q: Point) -> Bool { abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance }
        func centroid(_ p: [Point]) -> Point { Point(x: p.map(\.x).reduce(0, +) / Double(p.count), y: p.map(\.y).reduce(0, +) / Double(p.count)) }
        let ca = centroid(a), cb = centroid(b)
        for e in a.indices {
            let p = a[e], q = a[(e + 1) % a.count]
            guard abs(p.x - q.x) + abs(p.y - q.y) > tolerance else { continue }
            for f in b.indices {
                let r = b[f], s = b[(f + 1) % b.count]
                guard (near(p, s) && near(q, r)) || (near(p, r) && near(q, s)) else { continue }
                func side(_ c: Point) -> Double { (q.x - p.x) * (c.y - p.y) - (q.y - p.y) * (c.x - p.x) }
                if side(ca) * side(cb) < 0 { return e }
            }
        }
        return nil
    }

    /// The polygon of an item that paints the pixels wholly inside it with an opaque color,
    /// whatever lies under them.
    var cover: PreparedPolygon? {
        guard case .polygon(let quad) = self, quad.isCover else { return nil }
        return quad.quad
    }

    /// Whether the item paints every pixel of `rows` with an opaque color, whatever lies under it.
    func hides(rows: Range<Int>, width: Int) -> Bool {
        guard case .polygon(let quad) = self, quad.isCover else { return false }
        return quad.quad.covers(rows: rows, width: width)
    }

    /// Draws the item's part of `band`; a group draws its items into `buffers`' buffer at
    /// `depth` (band-sized, and kept by the worker), or into one of its own without them.
    func draw(into frame: UnsafeMutablePointer<UInt32>, width: Int, band: Range<Int>, buffers: BandBuffers? = nil, depth: Int = 1) {
        switch self {
        case .polygon(let quad):
            quad.draw(into: frame, width: width, band: band)
        case .group(let items, let rows, let columns, let k, let blend):
            let lo = max(band.lowerBound, rows.lowerBound), hi = min(band.upperBound, rows.upperBound)
            guard lo < hi else { return }
            // The group's own transparent rows, drawn as the frame's would be, then laid over them.
            let kept = buffers.flatMap { $0.capacity >= (hi - lo) * width ? $0.buffer(depth) : nil }
            let buffer = kept ?? .allocate(capacity: (hi - lo) * width)
            defer { if kept == nil { buffer.deallocate() } }
            let origin = buffer - lo * width
            for y in lo..<hi { (origin + y * width + columns.lowerBound).initialize(repeating: 0, count: columns.count) }
            for item in items { item.draw(into: origin, width: width, band: lo..<hi, buffers: buffers, depth: depth + 1) }
            // Opaque group pixels (most of a page) mix straight with what is beneath; a blend
            // mode's formula takes both.
            for y in lo..<hi {
                let offset = y * width + columns.lowerBound
                if blend == .normal {
                    segue_fade_row(frame + offset, origin + offset, Int32(columns.count), k)
                } else {
                    segue_blend_row(frame + offset, origin + offset, Int32(columns.count), k, blend.kernel)
                }
            }
        case .pixels(let row, let pages, _, _, let k):
            let kept = buffers.flatMap { $0.capacity >= width ? $0.buffer(depth) : nil }
            let line = kept ?? .allocate(capacity: width)
            defer { if kept == nil { line.deallocate() } }
            for y in band {
                row(y, pages, line)
                segue_fade_row(frame + y * width, line, Int32(width), k)
            }
        }
    }
}

/// A prepared polygon and its paint, with the pixel source chosen once for the whole polygon.
/// A class: every band draws it, and as a value each band copied it (a prepared polygon is a
/// kilobyte) out of the draw list, and again to ask whether it hides the band: a tenth of
/// instagram-zoom's time.
final class CompiledQuad: Sendable {
    let quad: PreparedPolygon
    let paint: Paint
    let masks: [ShapeMask]
    /// For an image drawn smaller than it was prepared, upright (see `FootprintSource`): its
    /// columns' and rows' weights; nil for every other paint.
    let footprint: (columns: FootprintTaps, rows: FootprintTaps)?

    init(quad: PreparedPolygon, paint: Paint, masks: [ShapeMask], canvas: Canvas) {
        self.quad = quad
        self.paint = paint
        self.masks = masks
        if case .image(_, let box, let map) = paint, let axes = CompiledQuad.uprightMinifying(map) {
            footprint = (FootprintTaps(count: canvas.width, scale: axes.x.scale, offset: axes.x.offset, low: box.x0, high: box.x1),
                         FootprintTaps(count: canvas.height, scale: axes.y.scale, offset: axes.y.offset, low: box.y0, high: box.y1, pairs: false))
        } else {
            footprint = nil
        }
    }

    /// How `map` reaches texels from canvas pixels when it scales and moves without turning,
    /// skewing or perspective, and shrinks the picture along some axis (a canvas pixel more
    /// than a texel wide or high): texel = canvas scale + offset on each axis.
    static func uprightMinifying(_ map: Homography) -> (x: (scale: Double, offset: Double), y: (scale: Double, offset: Double))? {
        let eps = 1e-9
        guard abs(map.m13) < eps, abs(map.m23) < eps, map.m33 > eps, abs(map.m12) < eps, abs(map.m21) < eps else { return nil }
        let x = (scale: map.m11 / map.m33, offset: map.m31 / map.m33), y = (scale: map.m22 / map.m33, offset: map.m32 / map.m33)
        guard abs(x.scale) > 1 + 1e-6 || abs(y.scale) > 1 + 1e-6 else { return nil }
        return (x, y)
    }

    /// Whether the quad paints the pixels wholly inside it with an opaque color, whatever lies under them.
    var isCover: Bool { paint.isOpaque && masks.isEmpty && quad.opacity >= 1 }

    func draw(into frame: UnsafeMutablePointer<UInt32>, width: Int, band: Range<Int>) {
        switch paint {
        case .solid(let pixel):
            draw(SolidSource(pixel: pixel), into: frame, width: width, band: band)
        case .group, .pixels:
            preconditionFailure("groups and per-pixel transitions are drawn as CompiledItem's")
        case .image(let image, let box, let map):
            image.pixels.withUnsafeBufferPointer { texels in
                let base = texels.baseAddress!
                if let footprint {
                    footprint.columns.withTable { columns in
                        footprint.rows.withTable { rows in
                            draw(FootprintSource(texels: base, stride: image.width, columns: columns, rows: rows, opaque: image.isOpaque),
                                 into: frame, width: width, band: band)
                        }
                    }
                } else if let offset = CompiledQuad.wholePixelOffset(map) {
                    draw(CopySource(texels: base, stride: image.width, dx: offset.dx, dy: offset.dy,
                                    x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1, opaque: image.isOpaque),
                         into: frame, width: width, band: band)
                } else {
                    draw(WarpSource(texels: base, stride: image.width, map: map,
                                    lowX: box.x0 * 256, highX: (box.x1 - 1) * 256, lowY: box.y0 * 256, highY: (box.y1 - 1) * 256,
                                    opaque: image.isOpaque), into: frame, width: width, band: band)
                }
            }
        }
    }

    @inline(__always)
    private func draw<S: PixelSource>(_ source: S, into frame: UnsafeMutablePointer<UInt32>, width: Int, band: Range<Int>) {
        if masks.isEmpty {
            quad.draw(source, into: frame, width: width, band: band)
        } else {
            quad.draw(MaskedSource(inner: source, masks: masks), into: frame, width: width, band: band)
        }
    }

    /// The texel offset when `map` is a translation by whole pixels (up to rounding noise).
    static func wholePixelOffset(_ map: Homography) -> (dx: Int, dy: Int)? {
        let eps = 1e-9
        guard abs(map.m13) < eps, abs(map.m23) < eps, abs(map.m33 - 1) < eps,
              abs(map.m11 - 1) < eps, abs(map.m22 - 1) < eps, abs(map.m12) < eps, abs(map.m21) < eps else { return nil }
        let dx = map.m31.rounded(), dy = map.m32.rounded()
        guard abs(map.m31 - dx) < 1e-6, abs(map.m32 - dy) < 1e-6 else { return nil }
        return (Int(dx), Int(dy))
    }
}
