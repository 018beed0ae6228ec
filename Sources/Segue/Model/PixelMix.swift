/// What a per-pixel transition is to the layer tree (`Layer.pixelMix`): it writes a frame's
/// rows from the two pages' pictures. The transitions are `PixelTransition`s.
public protocol PixelMixer: Sendable {
    /// What writes the frame's rows at `progress` (0 shows the outgoing page, 1 the
    /// incoming), on a canvas of `width` x `height` pixels: called once per frame, so that
    /// what the whole frame shares (a threshold, a table) is computed once, and the rows it
    /// returns are called from several threads at once.
    func rows(progress: Double, width: Int, height: Int) -> PixelRows
    /// Where every pixel of the frame reads the two pages only at the same points and mixes
    /// them there by one weight for the whole frame (a cross-fade blurred, twisted, folded),
    /// that weight (how much of the incoming page shows, 0...1): the pages are then mixed once,
    /// before the rows, and the mix handed to the rows as both pages (`PagePictures.premixed`),
    /// so that each point is read from one picture, not two. Nil for every other transition.
    func premix(progress: Double) -> Float?
}

extension PixelMixer {
    public func premix(progress: Double) -> Float? { nil }
}

/// Writes row `y` of a frame from the two pages' pictures into `out` (`pages.width` pixels).
public typealias PixelRows = @Sendable (_ y: Int, _ pages: PagePictures, _ out: UnsafeMutablePointer<UInt32>) -> Void

/// A layer whose two sublayers, the outgoing page and the incoming one, are drawn each into
/// a picture of its own, the frame then written pixel by pixel from the two by `mixer`.
/// Such a layer covers the canvas, untransformed.
public struct PixelMix: Sendable {
    public var mixer: any PixelMixer
    public var progress: Double

    public init(mixer: any PixelMixer, progress: Double) {
        self.mixer = mixer
        self.progress = progress
    }
}

/// The two pages of a per-pixel transition, drawn whole at the canvas's size: premultiplied
/// RGBA, rows packed. `a` is the outgoing page, `b` the incoming.
public struct PagePictures: @unchecked Sendable {   // read-only while the rows are written
    public let a: UnsafePointer<UInt32>
    public let b: UnsafePointer<UInt32>
    public let width: Int
    public let height: Int

    /// Row `y` of the outgoing page.
    @inline(__always) public func a(_ y: Int) -> UnsafePointer<UInt32> { a + y * width }
    /// Row `y` of the incoming page.
    @inline(__always) public func b(_ y: Int) -> UnsafePointer<UInt32> { b + y * width }
}

/// Texel arithmetic the compositor's warps and the per-pixel transitions share.
enum Texels {
    /// Four texels mixed by their overlap with the sample's pixel: weights in 256ths that sum
    /// to exactly 256, so the lanes of a packed pixel cannot overflow.
    @inline(__always)
    static func bilinear(_ p00: UInt32, _ p01: UInt32, _ p10: UInt32, _ p11: UInt32, _ fx: Int, _ fy: Int) -> UInt32 {
        let w11 = UInt32(truncatingIfNeeded: (fx &* fy &+ 128) >> 8)
        let w01 = UInt32(truncatingIfNeeded: fx) &- w11, w10 = UInt32(truncatingIfNeeded: fy) &- w11
        let w00 = 256 &- UInt32(truncatingIfNeeded: fx) &- UInt32(truncatingIfNeeded: fy) &+ w11
        let m: UInt32 = 0x00FF00FF
        let rb = ((p00 & m) &* w00 &+ (p01 & m) &* w01 &+ (p10 & m) &* w10 &+ (p11 & m) &* w11 &+ 0x00800080) >> 8
        let ag = ((p00 >> 8) & m) &* w00 &+ ((p01 >> 8) & m) &* w01 &+ ((p10 >> 8) & m) &* w10 &+ ((p11 >> 8) & m) &* w11 &+ 0x00800080
        return (rb & m) | (ag & 0xFF00FF00)
    }
}
