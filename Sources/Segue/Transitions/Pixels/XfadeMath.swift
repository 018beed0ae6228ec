import Foundation

/// The arithmetic FFmpeg's xfade filter (libavfilter/vf_xfade.c, by Paul B Mahol, LGPL 2.1+)
/// builds its transitions from, in single precision as it computes them, for the
/// transitions ported from it (each in Transitions/Xfade, one file each).
///
/// xfade's progress runs from 1 (the first input) to 0 (the second); Segue's from 0 to 1.
enum Xfade {
    /// xfade's progress for Segue's: 1 at the start, 0 at the end.
    static func progress(_ segue: Double) -> Float { Float(1 - segue) }

    /// 0 below `e0`, 1 above `e1` (or the other way round when e1 < e0), Hermite between.
    @inline(__always)
    static func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
        let t = min(max((x - e0) / (e1 - e0), 0), 1)
        return t * t * (3 - 2 * t)
    }

    /// The largest whole number not above x (|x| < 2^31), without a call into libm.
    @inline(__always)
    static func floor(_ x: Float) -> Float {
        let t = Float(Int32(truncatingIfNeeded: Int(x)))
        return t > x ? t - 1 : t
    }

    @inline(__always)
    static func fract(_ x: Float) -> Float { x - floor(x) }

    /// xfade's pseudo-random number in 0..<1 for a pixel (GLSL's classic sine hash).
    @inline(__always)
    static func frand(_ x: Int, _ y: Int) -> Float {
        let r = sinf(Float(x) * 12.9898 + Float(y) * 78.233) * 43758.545
        return r - r.rounded(.down)
    }

    /// `frand` of every pixel of a width x height frame, rows packed: made once per size and
    /// kept (a sine a pixel is most of a frame's time otherwise).
    static func noise(width: Int, height: Int) -> [Float] {
        if let kept = noiseKept.withLock({ $0.width == width && $0.height == height ? $0.values : nil }) { return kept }
        let values = (0..<(width * height)).map { frand($0 % width, $0 / width) }
        noiseKept.withLock { $0 = (width, height, values) }
        return values
    }
    private static let noiseKept = Locked<(width: Int, height: Int, values: [Float])>((0, 0, []))

    /// atan2(y, x) within 1e-5 radians (a minimax polynomial), without a call into libm:
    /// xfade's radial sweeps by it, and a smoothstep a radian wide hides the difference.
    @inline(__always)
    static func atan2(_ y: Float, _ x: Float) -> Float {
        let ax = abs(x), ay = abs(y), big = max(ax, ay)
        guard big > 0 else { return 0 }
        let a = min(ax, ay) / big, s = a * a
        var r = ((((-0.013480470 * s + 0.057477314) * s - 0.121239071) * s + 0.195635925) * s - 0.332994597) * s * a + a * 0.999995630
        if ay > ax { r = Float.pi / 2 - r }
        if x < 0 { r = Float.pi - r }
        return y < 0 ? -r : r
    }

    /// The distance from the origin, by a square root (hypotf guards against overflow, slowly).
    @inline(__always)
    static func length(_ x: Float, _ y: Float) -> Float { (x * x + y * y).squareRoot() }

    /// How much of the pixel [x, x + 1) lies in [low, high): an edge at any sub-pixel place,
    /// anti-aliased, where xfade's edges step a whole pixel at a time.
    @inline(__always)
    static func coverage(_ x: Int, _ low: Float, _ high: Float) -> Float {
        max(0, min(Float(x + 1), high) - max(Float(x), low))
    }

    /// The rows of a transition whose weight (how much of the incoming page shows) depends
    /// only on where a pixel lies toward `direction`'s far edge: `weight(along)`, along being
    /// x / w for left (xfade's convention: 0 at the left), (w - 1 - x) / w for right, y / h
    /// for up and (h - 1 - y) / h for down. Column weights are made once a frame.
    static func rows(along direction: Direction, width: Int, height: Int, weight: @escaping @Sendable (Float) -> Float) -> PixelRows {
        let w = Float(width), h = Float(height)
        switch direction {
        case .left:
            let weights = PagePictures.columnWeights(width) { x in weight(Float(x) / w) }
            return { y, pages, out in pages.mix(y, into: out, weights: weights) }
        case .right:
            let weights = PagePictures.columnWeights(width) { x in weight((w - 1 - Float(x)) / w) }
            return { y, pages, out in pages.mix(y, into: out, weights: weights) }
        case .up: return { y, pages, out in pages.mix(y, into: out, constant: weight(Float(y) / h)) }
        case .down: return { y, pages, out in pages.mix(y, into: out, constant: weight((h - 1 - Float(y)) / h)) }
        }
    }

    /// Opaque black and white, premultiplied.
    static let black: UInt32 = 0xFF00_0000
    static let white: UInt32 = 0xFFFF_FFFF
}

/// Where a directional transition moves (a wipe's edge, a slice's front, the wind): toward
/// the left, the right, the top or the bottom of the screen.
public enum Direction: String, CaseIterable, Sendable {
    case left, right, up, down

    /// Whether it moves along the x axis.
    var isHorizontal: Bool { self == .left || self == .right }
}

/// The corner a diagonal transition moves toward (xfade's tl, tr, bl, br).
public enum Corner: String, CaseIterable, Sendable {
    case tl, tr, bl, br

    var isLeft: Bool { self == .tl || self == .bl }
    var isTop: Bool { self == .tl || self == .tr }
}

extension PagePictures {
    /// `p` and `q` mixed as q k / 256 + p (256 - k) / 256 per channel, rounded (the kernels' `lerp`).
    @inline(__always)
    static func lerp(_ p: UInt32, _ q: UInt32, _ k: UInt32) -> UInt32 {
        let g = 256 - k
        let rb = (((p & 0x00FF_00FF) &* g &+ (q & 0x00FF_00FF) &* k &+ 0x0080_0080) >> 8) & 0x00FF_00FF
        let ag = (((p >> 8) & 0x00FF_00FF) &* g &+ ((q >> 8) & 0x00FF_00FF) &* k &+ 0x0080_0080) & 0xFF00_FF00
        return rb | ag
    }
}
