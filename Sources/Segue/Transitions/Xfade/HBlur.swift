import CSegueKernels

/// FFmpeg xfade's `hblur`: both pages blur sideways, more and more until halfway, while they
/// crossfade, then sharpen again. Ported from vf_xfade.c (a box over the next `size` pixels
/// of the row, fewer near its right end).
public struct HBlur: PixelTransition {
    public static let name = "hblur"
    public static let summary = "The images blur sideways as they crossfade, then sharpen (FFmpeg xfade hblur)."
    public static let family = TransitionFamily.displacements
    public static let source = "FFmpeg xfade hblur"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress)
        let size = max(1, min(width, Int(1 + Float(width / 2) * (p <= 0.5 ? p * 2 : (1 - p) * 2))))
        let k = UInt32(PagePictures.fixed(1 - p))
        // Each row's means come from prefix sums (C: segue_mix_hblur). The reciprocal of each
        // column's count (the box's pixels, fewer near the row's end) is made once a frame, one
        // for each channel, so that no pixel divides.
        let inverse = (0..<4 * width).map { i in UInt32((1 << 24) / min(size, width - i / 4)) }
        return { y, pages, out in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 4 * (width + size + 1) + 2 * width) { scratch in
                inverse.withUnsafeBufferPointer { inverse in
                    segue_mix_hblur(out, pages.a(y), pages.b(y), Int32(width), Int32(size), inverse.baseAddress!, k, scratch.baseAddress!)
                }
            }
        }
    }
}
