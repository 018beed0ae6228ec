/// FFmpeg xfade's `dissolve`: pixel by pixel, at random moments, the incoming page replaces
/// the outgoing one. Ported from vf_xfade.c, its pseudo-random numbers the same.
public struct Dissolve: PixelTransition {
    public static let name = "dissolve"
    public static let summary = "Pixel by pixel, at random, the next image replaces the last (FFmpeg xfade dissolve)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade dissolve"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), noise = Xfade.noise(width: width, height: height)
        return { y, pages, out in
            noise.withUnsafeBufferPointer { noise in
                let row = noise.baseAddress! + y * width
                pages.mix(y, into: out) { x in row[x] * 2 + p * 2 - 1.5 >= 0.5 ? 0 : 1 }
            }
        }
    }
}
