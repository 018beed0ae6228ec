import Foundation

/// FFmpeg xfade's `fadefast`: a crossfade in which the values that differ most between the two
/// pages change faster, each channel at its own pace. Ported from vf_xfade.c.
public struct FadeFast: PixelTransition {
    public static let name = "fadefast"
    public static let summary = "A crossfade in which what differs most changes quicker (FFmpeg xfade fadefast)."
    public static let family = TransitionFamily.mixes
    public static let source = "FFmpeg xfade fadefast"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        // The outgoing value's share is p^(1 + ln(1 + d)), d the channels' difference in 0...1.
        let p = Xfade.progress(progress)
        let table = (0..<256).map { d in PagePictures.fixed(1 - powf(p, 1 + logf(1 + Float(d) / 255))) }
        return { y, pages, out in pages.mix(y, into: out, table: table) }
    }
}
