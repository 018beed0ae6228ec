/// FFmpeg xfade's `hlwind`, `hrwind`, `vuwind` and `vdwind`: a soft front blown across the
/// screen toward `direction`, each row (or column) a little ahead or behind at random.
/// Ported from vf_xfade.c, its pseudo-random numbers the same.
public struct Wind: PixelTransition {
    public static let name = "wind"
    public static let summary = "A ragged soft front blown across the screen (FFmpeg xfade hlwind, hrwind, vuwind, vdwind)."
    public static let family = TransitionFamily.masks
    public static let source = "FFmpeg xfade hlwind, hrwind, vuwind, vdwind"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the wind blows: left, right, up or down.")
    public static let parameters = [direction.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = Xfade.progress(progress), w = Float(width), h = Float(height)
        // A nested function, not a closure value: inlined into each pixel's loop.
        @Sendable @inline(__always) func weight(_ along: Float, _ r: Float) -> Float {
            Xfade.smoothstep(0, -0.2, along * (1 - 0.2) + 0.2 * r - (1 - p) * (1 + 0.2))
        }
        switch values[Self.direction] {
        case .left, .right:
            let left = values[Self.direction] == .left
            return { y, pages, out in
                let r = Xfade.frand(0, y)
                pages.mix(y, into: out) { x in weight(left ? 1 - Float(x) / w : Float(x) / w, r) }
            }
        case .up, .down:
            let up = values[Self.direction] == .up
            let r = (0..<width).map { Xfade.frand($0, 0) }
            return { y, pages, out in
                let along = up ? 1 - Float(y) / h : Float(y) / h
                r.withUnsafeBufferPointer { r in pages.mix(y, into: out) { x in weight(along, r[x]) } }
            }
        }
    }
}
