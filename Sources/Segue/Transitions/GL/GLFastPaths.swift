import CSegueKernels

// The shapes of gl-transitions ports, each a kernel in C that writes a row from what the port
// works out: a mask (the pages at each pixel mixed by a weight), a mix (the two texels at each
// pixel made one colour; an affine one is a map of the frame), a warp (a sample of each page
// wherever it lies, mixed by a weight) and a sum (`GLSums.swift`: samples of each page and a
// floor colour added up). A warp's or a sum's positions are worked out per pixel in Swift or a
// row at a time in C, never both. A port that is none of these writes its rows itself.

/// A gl-transitions port of one of the shapes, and what its pixels share: worked out once a frame.
public protocol GLFramed: GLTransition {
    associatedtype Frame: Sendable
    /// What every pixel of the frame shares (the uniforms read, the progress's functions),
    /// worked out once a frame.
    func frame(_ f: GLUniforms) -> Frame
}

/// A gl-transitions port whose every pixel is the two pages at `uv` mixed by a weight (its GLSL
/// is `mix(getFromColor(uv), getToColor(uv), w)` with w in 0...1): only the weight is worked
/// out per pixel, in Swift, and the pages are mixed by the C kernel the xfade masks use, in
/// 256ths. What the frame shares is worked out once (`frame(_:)`).
public protocol GLMask: GLFramed {
    /// How much of the incoming page shows at `uv` (0...1).
    func weight(_ uv: SIMD2<Float>, _ k: Frame) -> Float
}

/// What a frame's pixels share: the progress, and the canvas's ratio (width over height) and size.
public struct GLUniforms: Sendable {
    public let progress: Float
    public let ratio: Float
    public let width: Int
    public let height: Int

    init(progress: Float, width: Int, height: Int) {
        self.progress = progress
        ratio = Float(width) / Float(height)
        self.width = width
        self.height = height
    }
}

/// A gl-transitions port that reads each page only at `uv` itself (a texel's centre, where GL's
/// bilinear sample is the texel) and works its colour out from the two: the texels are handed
/// to it as they are, with no sampling.
public protocol GLMix: GLFramed {
    /// The pixel at `uv` from the outgoing page's colour there (`a`) and the incoming's (`b`).
    func mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ uv: SIMD2<Float>, _ k: Frame) -> SIMD4<Float>
}

/// What a warp's pixel takes from the two pages: the outgoing page at `from`, the incoming at
/// `to` (uv, GL's way round; NaN for neither: the warp's `outside` colour), mixed by `weight`.
public struct GLSamples {
    public var from: SIMD2<Float>
    public var to: SIMD2<Float>
    public var weight: Float

    @inline(__always) public init(from: SIMD2<Float>, to: SIMD2<Float>, weight: Float) {
        self.from = from
        self.to = to
        self.weight = weight
    }

    /// Both pages at `uv`.
    @inline(__always) public init(_ uv: SIMD2<Float>, weight: Float) { self.init(from: uv, to: uv, weight: weight) }

    /// The warp's `outside` colour.
    public static var outside: GLSamples { GLSamples(vec2(.nan, .nan), weight: 0) }
}

/// A gl-transitions port whose every pixel is one sample of each page, wherever it lies, mixed
/// by a weight (`mix(getFromColor(p), getToColor(q), w)`, w in 0...1), or a colour of its own:
/// the C kernel samples (bilinear, in 256ths, as the compositor does) and mixes where
/// `positions` says. Its positions are worked out per pixel in Swift (`GLSampledWarp`), by a
/// row kernel of glwarps.c (`GLKernelWarp`), or by a C row of the port's own.
public protocol GLWarp: GLFramed {
    /// The colour of a pixel whose samples are NaN (opaque black unless the port says).
    func outside(_ k: Frame) -> SIMD4<Float>
    /// A row's samples at height `v` for the kernel, each column's u in `us`: texel positions
    /// (centres at whole numbers, rows from the top) of the outgoing page's sample, x then y,
    /// the incoming page's, and the weights, five runs of `us.count` numbers from `into`.
    func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width: Float, height: Float,
                   into: UnsafeMutablePointer<Float>)
}

extension GLWarp {
    public func outside(_ k: Frame) -> SIMD4<Float> { vec4(0, 0, 0, 1) }
}

/// A warp whose samples are worked out per pixel, in Swift.
public protocol GLSampledWarp: GLWarp {
    func samples(_ uv: SIMD2<Float>, _ k: Frame) -> GLSamples
}

extension GLSampledWarp {
    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width w: Float, height h: Float,
                          into: UnsafeMutablePointer<Float>) {
        let count = us.count, ax = into, ay = ax + count, bx = ay + count, by = bx + count, weights = by + count
        for x in 0..<count {
            let s = samples(vec2(us[x], v), k)
            ax[x] = s.from.x * w - 0.5
            ay[x] = (1 - s.from.y) * h - 0.5
            bx[x] = s.to.x * w - 0.5
            by[x] = (1 - s.to.y) * h - 0.5
            weights[x] = s.weight
        }
    }
}

/// A row kernel of `CSegueKernels/glwarps.c`: positions, each column's u, v, width, height,
/// the frame's constants (`SEGUE_WARP_CONSTANTS` of them), the count.
public typealias GLWarpRowKernel = @convention(c) (UnsafeMutablePointer<Float>?, UnsafePointer<Float>?, Float, Float, Float,
                                                   UnsafePointer<Float>?, Int32) -> Void

/// A warp whose samples are written in C alone, in `glwarps.c` (16 pixels at a time where
/// Swift's baseline does one or four): the port works out the frame's numbers the kernel
/// reads (`constants`).
public protocol GLKernelWarp: GLWarp {
    static var row: GLWarpRowKernel { get }
    /// The frame's numbers the kernel reads, in its order.
    func constants(_ k: Frame) -> SIMD8<Float>
}

extension SIMD8 where Scalar == Float {
    /// A warp kernel's constants: the numbers given, then zeros.
    static func constants(_ numbers: Float...) -> Self {
        var c = Self()
        for (i, x) in numbers.enumerated() { c[i] = x }
        return c
    }
}

extension GLKernelWarp {
    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width: Float, height: Float,
                          into: UnsafeMutablePointer<Float>) {
        withUnsafeBytes(of: constants(k)) { c in
            Self.row(into, us.baseAddress!, v, width, height, c.assumingMemoryBound(to: Float.self).baseAddress!, Int32(us.count))
        }
    }
}

extension GLFrame {
    /// Each column's u, (x + 0.5) / width: made once a frame, not divided for each pixel.
    static func columns(_ width: Int) -> [Float] { (0..<width).map { (Float($0) + 0.5) / Float(width) } }
}

extension GLTransition where Self: GLMask {
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows { maskRows(progress: progress, width: width, height: height) }
}

extension GLMask {
    /// The frame's rows, `weight` worked out for each pixel.
    func maskRows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, us = GLFrame.columns(width), k = frame(GLUniforms(progress: Float(progress), width: width, height: height))
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / Float(height)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { weights in
                us.withUnsafeBufferPointer { us in
                    for x in 0..<width { weights[x] = me.weight(vec2(us[x], v), k) }
                }
                segue_mix_weights(out, pages.a(y), pages.b(y), weights.baseAddress!, Int32(width))
            }
        }
    }
}

extension GLTransition where Self: GLWarp {
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows { warpRows(progress: progress, width: width, height: height) }
}

extension GLWarp {
    /// The frame's rows as the warp writes them: the C kernel samples and mixes the pages
    /// where `positions` says. A port that does more with its rows (a light added, a second
    /// mix) calls this from its own `rows`.
    func warpRows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, w = Float(width), h = Float(height), us = GLFrame.columns(width)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), outside = GLFrame.pixel(outside(k))
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / h
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 5 * width) { buffer in
                let ax = buffer.baseAddress!
                us.withUnsafeBufferPointer { us in me.positions(us, v, k, width: w, height: h, into: ax) }
                segue_mix_warped(out, pages.a, pages.b, Int32(width), Int32(height), ax, ax + width, ax + 2 * width, ax + 3 * width,
                                 ax + 4 * width, outside, Int32(width))
            }
        }
    }
}

extension GLTransition where Self: GLMix {
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows { mixRows(progress: progress, width: width, height: height) }
}

extension GLMix {
    /// The frame's rows, `mix` run on each pixel's two texels.
    func mixRows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, h = Float(height), us = GLFrame.columns(width)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height))
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / h, a = pages.a(y), b = pages.b(y)
            us.withUnsafeBufferPointer { us in
                for x in 0..<width { out[x] = GLFrame.pixel(me.mix(GLFrame.color(a[x]), GLFrame.color(b[x]), vec2(us[x], v), k)) }
            }
        }
    }
}

/// A `GLMix` whose colour is an affine map of the two texels' channels and the products of their
/// like channels, the same map for every pixel of a frame: its `mix` reads no `uv`, and only
/// adds up the texels' channels and their products (red by red…), times numbers of the frame,
/// and numbers of the frame (a fade through a colour or through gray, a burn, a multiply blend).
/// The map is read off `mix` once a frame and the C kernel applies it in 65536ths; a map the
/// kernel's integers cannot hold, or that `mix` does not follow, falls back to `mix`.
public protocol GLAffineMix: GLMix {}

extension GLTransition where Self: GLAffineMix {
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), centre = vec2(0.5, 0.5)
        guard let map = GLAffine.map({ mix($0, $1, centre, k) }) else { return mixRows(progress: progress, width: width, height: height) }
        return { y, pages, out in GLAffine.mix(map, pages.a(y), pages.b(y), into: out, count: width) }
    }
}

/// Maps of two texels' channels, affine but for the products of like channels, as
/// `segue_mix_affine` applies them.
enum GLAffine {
    /// The map `mix` is, read off it at the texels zero, each unit channel and each pair of
    /// like unit channels: for each channel c, what each of the outgoing texel's channels, then
    /// the incoming's, adds to it a level, then their c channels' product, then the constant it
    /// starts from, in 65536ths. Nil where a factor is too large for the kernel's integers (8 or
    /// more), or `mix` is not such a map (checked at two other texels).
    static func map(_ mix: (SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>) -> [Int32]? {
        let zero = vec4(repeating: 0), base = mix(zero, zero)
        func unit(_ d: Int) -> vec4 { var u = zero; u[d] = 1; return u }
        let columns = (0..<4).map { mix(unit($0), zero) - base } + (0..<4).map { mix(zero, unit($0)) - base }
        var products = vec4(repeating: 0)
        for c in 0..<4 {
            let both: Float = mix(unit(c), unit(c))[c]
            products[c] = both - columns[c][c] - columns[4 + c][c] - base[c]
        }
        func applied(_ a: vec4, _ b: vec4) -> vec4 {
            var v = base + products * a * b
            for d in 0..<4 { v += columns[d] * a[d] + columns[4 + d] * b[d] }
            return v
        }
        let a = vec4(0.3, 0.6, 0.9, 1), b = vec4(0.8, 0.1, 0.5, 0.7)
        let misses: [vec4] = [applied(a, b) - mix(a, b), applied(b, a) - mix(b, a)]
        let factors: [vec4] = columns + [base, products]
        guard misses.allSatisfy({ ($0 * $0).sum() < 1e-10 }), factors.allSatisfy({ v in (0..<4).allSatisfy { abs(v[$0]) < 8 } }) else { return nil }
        var map: [Int32] = []
        for c in 0..<4 {
            for column in columns { map.append(Int32((column[c] * 65536).rounded())) }
            map.append(Int32((products[c] * 65536 / 255).rounded()))
            map.append(Int32((base[c] * 255 * 65536).rounded()))
        }
        return map
    }

    /// `count` pixels of `a` and `b` mixed by `map` into `out`.
    static func mix(_ map: [Int32], _ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>, into out: UnsafeMutablePointer<UInt32>, count: Int) {
        map.withUnsafeBufferPointer { segue_mix_affine(out, a, b, $0.baseAddress!, Int32(count)) }
    }
}
