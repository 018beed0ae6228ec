import CSegueKernels

/// A transition computed pixel by pixel from the two pages' pictures, as FFmpeg's xfade
/// computes all of its own: the compositor draws each page whole into a picture of its own
/// (`PagePictures`), then has the transition write the frame's rows from them. Masks, mixes
/// and displacements are such; each is one short file of its math, written with the helpers
/// of `PagePictures` (a weight for each pixel, constants, or pixels taken from elsewhere).
public protocol PixelTransition: PageTransition, PixelMixer {}

extension PixelTransition {
    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [from]) }
        if progress >= 1 { return .root(bounds, [to]) }
        var mix = Layer(frame: bounds)
        mix.sublayers = [from, to]
        mix.pixelMix = PixelMix(mixer: self, progress: progress)
        mix.name = Self.name
        return .root(bounds, [mix])
    }
}

extension PagePictures {
    /// Row `y` mixed pixel by pixel: `weight(x)` is how much of the incoming page shows at
    /// column x (0...1, clamped), kept to 1/256ths as the compositor's opacities are.
    /// The weights are written as floats and kept to 256ths by the kernel, so that their
    /// loop holds no conversion (each a range check in Swift) and vectorizes.
    @inline(__always)
    public func mix(_ y: Int, into out: UnsafeMutablePointer<UInt32>, weight: (Int) -> Float) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { w in
            for x in 0..<width { w[x] = weight(x) }
            segue_mix_weights(out, a(y), b(y), w.baseAddress!, Int32(width))
        }
    }

    /// Row `y` mixed by `weights` (one a column, how much of the incoming page shows, as
    /// for `mix(_:into:weight:)`): for a transition whose weights change only across the
    /// screen, made once a frame (`columnWeights`).
    public func mix(_ y: Int, into out: UnsafeMutablePointer<UInt32>, weights: [Float]) {
        weights.withUnsafeBufferPointer { segue_mix_weights(out, a(y), b(y), $0.baseAddress!, Int32(width)) }
    }

    /// The weights of `width` columns, `weight(x)` each, for `mix(_:into:weights:)`.
    public static func columnWeights(_ width: Int, weight: (Int) -> Float) -> [Float] { (0..<width).map(weight) }

    /// Row `y` mixed with one weight for all of it (how much of the incoming page shows).
    public func mix(_ y: Int, into out: UnsafeMutablePointer<UInt32>, constant weight: Float) {
        let row = mixed(y, constant: weight, scratch: out)
        if row != UnsafePointer(out) { out.update(from: row, count: width) }
    }

    /// Row `y` mixed with one weight (how much of the incoming page shows), read in place where it is a
    /// page's own row (one picture, or a weight of 0 or 1), else mixed into `scratch`.
    public func mixed(_ y: Int, constant weight: Float, scratch: UnsafeMutablePointer<UInt32>) -> UnsafePointer<UInt32> {
        let k = PagePictures.fixed(weight)
        if k == 0 || a == b { return a(y) }
        if k == 256 { return b(y) }
        segue_mix_constant(scratch, a(y), b(y), UInt32(k), Int32(width))
        return UnsafePointer(scratch)
    }

    /// Row `y` pixel by pixel, each from `pixel(x)` (pixels of either page, from anywhere).
    @inline(__always)
    public func map(_ y: Int, into out: UnsafeMutablePointer<UInt32>, pixel: (Int) -> UInt32) {
        for x in 0..<width { out[x] = pixel(x) }
    }

    /// A weight in 256ths, rounded, 0...256 (0 for NaN). Without `rounded()`, which is a
    /// call into libm per pixel on x86-64's baseline.
    @inline(__always)
    static func fixed(_ weight: Float) -> UInt16 {
        let w = weight > 0 ? min(weight, 1) : 0
        return UInt16(w * 256 + 0.5)
    }
}

extension PagePictures {
    /// Row `y` as `sum` adds it up from the two pages and a colour (a fade through a colour).
    public func mix(_ y: Int, into out: UnsafeMutablePointer<UInt32>, sum: LinearMix) {
        sum.write(out, a(y), b(y), count: width)
    }

    /// Row `y` with each channel mixed at its own pace: `table[d]` is how much of the incoming
    /// page's value shows (in 256ths) where the two pages' values lie d apart (0...255).
    public func mix(_ y: Int, into out: UnsafeMutablePointer<UInt32>, table: [UInt16]) {
        precondition(table.count == 256)
        segue_mix_table(out, a(y), b(y), table, Int32(width))
    }
}

/// A sum of the two pages and a colour, made once a frame: the outgoing page times `a`, the
/// incoming times `b`, plus `color` (0...1 a channel) times `c`, each channel clamped; in
/// 65536ths.
public struct LinearMix: Sendable {
    let a: UInt32, b: UInt32
    let constants: [UInt32]

    public init(a: Float, b: Float, color: Color, c: Float) {
        func fixed(_ v: Double) -> UInt32 { UInt32(max(0, (v * 65536).rounded())) }
        self.a = fixed(Double(a))
        self.b = fixed(Double(b))
        let alpha = color.alpha
        constants = [color.red * alpha, color.green * alpha, color.blue * alpha, alpha].map { fixed($0 * 255 * Double(c)) }
    }

    /// `count` pixels of `a` and `b` summed into `out` (which must not be either).
    func write(_ out: UnsafeMutablePointer<UInt32>, _ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>, count: Int) {
        constants.withUnsafeBufferPointer { c in segue_mix_linear(out, a, b, self.a, self.b, c.baseAddress!, Int32(count)) }
    }
}
