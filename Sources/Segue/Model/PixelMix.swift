/// What a per-pixel transition is to the layer tree (`Layer.pixelMix`): it writes a frame's
/// rows from the two pages' pictures. The transitions are `PixelTransition`s.
public protocol PixelMixer: Sendable {
    /// What writes the frame's rows at `progress` (0 shows the outgoing page, 1 the
    /// incoming), on a canvas of `width` x `height` pixels: called once per frame, so that
    /// what the whole frame shares (a threshold, a table) is computed once, and the rows it
    /// returns are called from several threads at once.
    func rows(progress: Double, width: Int, height: Int) -> PixelRows
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
