import Dispatch

/// An RGBA frame the compositor draws into: premultiplied, 8 bits per channel, rows packed.
///
/// Its pixels are raw memory that several threads write at once, each its own band of rows
/// (the compositor and the YUV conversion cut the frame so), and that one thread at a time
/// reads whole after that: the compiler cannot check that discipline, hence unchecked.
public final class FrameBuffer: @unchecked Sendable {
    public let width: Int
    public let height: Int
    let pixels: UnsafeMutablePointer<UInt32>

    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height)
        pixels.initialize(repeating: 0, count: width * height)
    }

    deinit { pixels.deallocate() }

    /// The frame's bytes, in place: R, G, B, A for each pixel, row after row.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: pixels, count: width * height * 4))
    }

    /// A copy of the frame's bytes: R, G, B, A for each pixel, row after row.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// A copy of the pixels as an Image.
    public func image() -> Image {
        Image(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height)))
    }

    /// The packed RGBA pixel at (x, y).
    public subscript(x: Int, y: Int) -> UInt32 { pixels[y * width + x] }
}

/// The canvas a scene is drawn on: a size in pixels, the points-to-pixels scale and the
/// color beneath everything.
public struct Canvas: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Pixels per point.
    public var scale: Double
    public var background: Color

    public init(width: Int, height: Int, scale: Double, background: Color = .black) {
        self.width = width
        self.height = height
        self.scale = scale
        self.background = background
    }

    /// The canvas in points, the space scenes are laid out in.
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width) / scale, height: Double(height) / scale) }
}

/// Draws layer trees into frames. The frame is cut into bands of rows that are drawn in
/// parallel with `DispatchQueue.concurrentPerform`; no two bands share a pixel, and every
/// pixel is computed the same way whatever the banding, so the output is byte-identical
/// for any number of threads.
public struct Compositor: Sendable {
    /// How many bands are drawn at once (at most the machine's cores run in parallel).
    public var threads: Int
    /// Rows in a band: small enough to balance uneven rows, large enough to amortise.
    public static let bandHeight = 16

    public init(threads: Int = 2) {
        precondition(threads >= 1)
        self.threads = threads
    }

    /// Draws `root` (laid out in the canvas's points) over the canvas background into
    /// `frame`, its pictures resolved through `pictures`.
    public func render(_ root: Layer, canvas: Canvas, pictures: PictureCache, into frame: FrameBuffer) throws {
        precondition(frame.width == canvas.width && frame.height == canvas.height, "frame and canvas differ in size")
        let quads = prepare(try root.drawList(scale: canvas.scale, pictures: pictures), canvas: canvas)
        let background = canvas.background.premultipliedPixel
        let bands = (canvas.height + Compositor.bandHeight - 1) / Compositor.bandHeight
        let workers = min(threads, bands)
        let draw: @Sendable (Int) -> Void = { band in
            let rows = band * Compositor.bandHeight..<min(canvas.height, (band + 1) * Compositor.bandHeight)
            let start = frame.pixels + rows.lowerBound * canvas.width
            start.update(repeating: background, count: rows.count * canvas.width)
            for quad in quads { quad.draw(into: frame.pixels, width: canvas.width, band: rows) }
        }
        if workers == 1 {
            for band in 0..<bands { draw(band) }
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var band = worker
                while band < bands { draw(band); band += workers }
            }
        }
    }

    /// Renders into a new frame.
    public func render(_ root: Layer, canvas: Canvas, pictures: PictureCache) throws -> FrameBuffer {
        let frame = FrameBuffer(width: canvas.width, height: canvas.height)
        try render(root, canvas: canvas, pictures: pictures, into: frame)
        return frame
    }

    private func prepare(_ items: [DrawItem], canvas: Canvas) -> [CompiledQuad] {
        items.compactMap { item in
            guard let quad = PreparedQuad(corners: item.corners, opacity: item.opacity, canvasHeight: canvas.height) else { return nil }
            return CompiledQuad(quad: quad, paint: item.paint, clips: item.clips)
        }
    }
}

/// A prepared quad and its paint, with the pixel source chosen once for the whole quad.
struct CompiledQuad {
    let quad: PreparedQuad
    let paint: Paint
    let clips: [Clip]

    func draw(into frame: UnsafeMutablePointer<UInt32>, width: Int, band: Range<Int>) {
        switch paint {
        case .solid(let pixel):
            draw(SolidSource(pixel: pixel), into: frame, width: width, band: band)
        case .image(let image, let box, let map):
            image.pixels.withUnsafeBufferPointer { texels in
                let base = texels.baseAddress!
                if let offset = CompiledQuad.wholePixelOffset(map) {
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
        if clips.isEmpty {
            quad.draw(source, into: frame, width: width, band: band)
        } else {
            quad.draw(MaskedSource(inner: source, clips: clips), into: frame, width: width, band: band)
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
