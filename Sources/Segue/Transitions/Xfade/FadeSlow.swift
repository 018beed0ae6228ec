import Foundation

/// FFmpeg xfade's `fadeslow`: a crossfade in which the values that differ most between the two
/// pages change slower, each channel at its own pace. Ported from vf_xfade.c.
public struct FadeSlow: PixelTransition {
    public static let name = "fadeslow"
    public static let summary = "A crossfade in which what differs most changes later (FFmpeg xfade fadeslow)."
    public static let family = TransitionFamily.mixes
    public static let source = "FFmpeg xfade fadeslow"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        // The outgoing value's share is p^(1 + ln(2 - d)), d the channels' difference in 0...1.
        let p = Xfade.progress(progress)
        let table = (0..<256).map { d in PagePictures.fixed(1 - powf(p, 1 + logf(2 - Float(d) / 255))) }
        return { y, pages, out in pages.mix(y, into: out, table: table) }
    }
}
