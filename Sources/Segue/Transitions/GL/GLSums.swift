import CSegueKernels

/// What a pixel of a `GLSumWarp` adds up: the outgoing page sampled at `from` times
/// `fromWeight`, the incoming at `to` times `toWeight` (uv, GL's way round; NaN for no sample)
/// and the frame's floor colour times `floorWeight`, each weight 0...1.
public struct GLSums {
    public var from: SIMD2<Float>
    public var to: SIMD2<Float>
    public var fromWeight: Float
    public var toWeight: Float
    public var floorWeight: Float

    @inline(__always)
    public init(from: SIMD2<Float>, to: SIMD2<Float>, fromWeight: Float, toWeight: Float, floorWeight: Float) {
        self.from = from
        self.to = to
        self.fromWeight = fromWeight
        self.toWeight = toWeight
        self.floorWeight = floorWeight
    }
}

/// A gl-transitions port whose every pixel is a sum: a sample of each page, wherever it lies,
/// times a weight, over a colour of the frame times a weight (a page seen where it stands, or a
/// floor with the pages' reflections added on it: swap, doorway). GL's sum is clamped to 0...1,
/// as the kernel's is to 255. The positions and weights are worked out per pixel in Swift (or
/// a row at a time, `positions`), and the C kernel samples (bilinear, in 256ths, as the warp
/// does) and adds, copying a page where a run of pixels shows only that page.
public protocol GLSumWarp: GLFramed {
    func sums(_ uv: SIMD2<Float>, _ k: Frame) -> GLSums
    /// The colour under the pages (opaque black unless the port says).
    func floor(_ k: Frame) -> SIMD4<Float>
    /// A row's sums at height `v` for the kernel, each column's u in `us`: texel positions (as
    /// `GLWarp.positions` writes them) of the outgoing page's sample, x then y, the incoming's,
    /// then the three weights, seven runs of `us.count` numbers from `into`. By default `sums`
    /// for each pixel.
    func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width: Float, height: Float,
                   into: UnsafeMutablePointer<Float>)
    /// The sums of every `SEGUE_AHEAD_STRIDE`-th column of the row at height `v` (columns 0,
    /// stride, 2 stride, ...), written as `positions` writes a row's, seven runs of the columns'
    /// count divided by the stride, rounded up: the kernel asks the cache for their texels
    /// `SEGUE_AHEAD_ROWS` rows before it draws them. False, by default, where the port has no
    /// cheap way to them; the kernel then guesses where its samples go (`prefetch_rows`).
    func positionsAhead(_ v: Float, _ k: Frame, width: Float, height: Float, into: UnsafeMutablePointer<Float>) -> Bool
}

extension GLSumWarp {
    public func floor(_ k: Frame) -> SIMD4<Float> { vec4(0, 0, 0, 1) }

    public func positionsAhead(_ v: Float, _ k: Frame, width: Float, height: Float, into: UnsafeMutablePointer<Float>) -> Bool { false }

    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width w: Float, height h: Float,
                          into: UnsafeMutablePointer<Float>) {
        let count = us.count
        for x in 0..<count {
            let s = sums(vec2(us[x], v), k)
            GLSums.write(s, at: x, count: count, width: w, height: h, into: into)
        }
    }

    public func shader(_ f: GLFrame) -> GLShader {
        let k = frame(GLUniforms(f)), me = self, floor = floor(k)
        @inline(__always) func sample(_ uv: vec2, _ page: (vec2) -> vec4) -> vec4 { uv.x.isNaN || uv.y.isNaN ? .zero : page(uv) }
        return { uv in
            let s = me.sums(uv, k)
            return sample(s.from, f.from) * s.fromWeight + sample(s.to, f.to) * s.toWeight + floor * s.floorWeight
        }
    }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, w = Float(width), h = Float(height), us = GLFrame.columns(width)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), floor = GLFrame.pixel(floor(k))
        let sparse = (width + Int(SEGUE_AHEAD_STRIDE) - 1) / Int(SEGUE_AHEAD_STRIDE)
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / h
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 7 * (width + sparse)) { buffer in
                us.withUnsafeBufferPointer { us in me.positions(us, v, k, width: w, height: h, into: buffer.baseAddress!) }
                let ahead = buffer.baseAddress! + 7 * width, below = y + Int(SEGUE_AHEAD_ROWS)
                let known = below < height && me.positionsAhead(1 - (Float(below) + 0.5) / h, k, width: w, height: h, into: ahead)
                segue_sum_warped(out, pages.a, pages.b, Int32(width), Int32(height), buffer.baseAddress!, known ? ahead : nil, floor, Int32(width))
            }
        }
    }
}

extension GLFrame {
    /// Every `SEGUE_AHEAD_STRIDE`-th of a frame's per-column numbers (columns 0, stride, ...):
    /// what a port's `positionsAhead` reads where its `positions` reads them all.
    static func ahead(_ columns: [Float]) -> [Float] {
        Swift.stride(from: 0, to: columns.count, by: Int(SEGUE_AHEAD_STRIDE)).map { columns[$0] }
    }
}

extension GLSums {
    /// Pixel `x`'s sums into the kernel's seven runs: uv made texel positions.
    @inline(__always)
    static func write(_ s: GLSums, at x: Int, count: Int, width w: Float, height h: Float, into: UnsafeMutablePointer<Float>) {
        into[x] = s.from.x * w - 0.5
        into[count + x] = (1 - s.from.y) * h - 0.5
        into[2 * count + x] = s.to.x * w - 0.5
        into[3 * count + x] = (1 - s.to.y) * h - 0.5
        into[4 * count + x] = s.fromWeight
        into[5 * count + x] = s.toWeight
        into[6 * count + x] = s.floorWeight
    }
}
