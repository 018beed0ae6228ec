import CSegueKernels

/// gl-transitions' `LinearBlur` by gre (MIT): the pictures blur as they cross-fade, most at the
/// middle. Ported from LinearBlur.glsl (a box of 6 x 6 samples).
public struct GLLinearBlur: GLTransition {
    public static let file = "LinearBlur", authors = "gre"
    public static let summary = "A cross-fade through a blur (gl-transitions LinearBlur)."
    public static let family = TransitionFamily.mixes
    public static let intensity = Parameter.number("intensity", default: 0.1, in: 0...10, "How wide the blur is at the middle.")
    public static let parameters = [intensity.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The pages mixed once a frame: both pages are read at the same points, their blurs mixed by the progress.
    public func premix(progress: Double) -> Float? { Float(progress) }

    /// The 6 x 6 samples of a page lie at the same offsets from every pixel, so their mean is a
    /// separable filter: each sample's bilinear weights (at 1/256 texel, as the ports sample)
    /// summed into a dozen taps across and a dozen down, run in C a row at a time.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let passes = 6, p = Float(progress)
        let disp = values.float(Self.intensity) * (0.5 - abs(0.5 - p))
        let steps = (0..<passes).map { disp * (Float($0) / Float(passes) - 0.5) }
        // uv + step: across, step × width texels; down the picture (rows from the top), −step × height.
        let columns = Self.taps(steps.map { $0 * Float(width) }), rows = Self.taps(steps.map { -$0 * Float(height) })
        let scale = 1 / Float(passes * passes * 65536), k = UInt32(PagePictures.fixed(p))
        return { y, pages, out in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 10 * width) { scratch in
                rows.offsets.withUnsafeBufferPointer { ro in rows.weights.withUnsafeBufferPointer { rw in
                    columns.offsets.withUnsafeBufferPointer { co in columns.weights.withUnsafeBufferPointer { cw in
                        var down = SegueFilterTaps(offsets: ro.baseAddress, weights: rw.baseAddress, count: Int32(ro.count))
                        var across = SegueFilterTaps(offsets: co.baseAddress, weights: cw.baseAddress, count: Int32(co.count))
                        segue_mix_filtered(out, pages.a, pages.b, Int32(width), Int32(height), Int32(y), &down, &across, scale, k,
                                           scratch.baseAddress!)
                    } }
                } }
            }
        }
    }

    /// The taps of samples at `offsets` (texels) from a pixel, each bilinear at 1/256 texel:
    /// whole-texel offsets and weights in 256ths, 256 a sample.
    static func taps(_ offsets: [Float]) -> (offsets: [Int32], weights: [UInt32]) {
        var weights: [Int32: UInt32] = [:]
        for d in offsets {
            let fixed = Int32((d * 256).rounded()), whole = fixed >> 8, fraction = UInt32(fixed & 255)
            weights[whole, default: 0] += 256 - fraction
            weights[whole + 1, default: 0] += fraction
        }
        let kept = weights.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        return (kept.map(\.key), kept.map(\.value))
    }
}
