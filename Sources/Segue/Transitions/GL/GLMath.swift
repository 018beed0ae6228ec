/// GLSL's `floor`, `atan`, `acos`, `pow`, `sin` and `cos` in plain arithmetic: no call into
/// libm, no conversion to an integer (each a range check in Swift), so that a loop of a port's
/// pixels can be vectorised. The polynomials are Cephes' single-precision ones (Stephen L.
/// Moshier, MIT-compatible, as in its `atanf.c`, `asinf.c`, `log2f.c`, `exp2f.c` and `sinf.c`):
/// within a few units in the last place of libm's, as close as a GPU's own `sin` and `atan`
/// come to the true values.
extension GLSL {
    /// 1.5 × 2²³: added to a number below 2²² in magnitude, leaves it rounded to a whole one
    /// in the low bits of the sum.
    private static let rounder: Float = 12_582_912

    /// The largest whole number not above x. Numbers of 2²² and more in magnitude are taken as
    /// whole (from 2²³ they are; between, a half would be kept).
    @inline(__always) static func floor(_ x: Float) -> Float {
        let r = (x + rounder) - rounder
        let f = r > x ? r - 1 : r
        return abs(x) < 4_194_304 ? f : x
    }

    /// The angle of (x, y) from the x axis, -π...π, as GLSL's `atan(y, x)`.
    @inline(__always) static func atan(_ y: Float, _ x: Float) -> Float {
        let ax = abs(x), ay = abs(y)
        let big = max(ax, ay), small = min(ax, ay)
        let t = big > 0 ? small / big : 0                        // 0...1
        // Past tan(π/8), atan(t) = π/4 + atan((t - 1) / (t + 1)).
        let far = t > 0.414_213_56
        let u = far ? (t - 1) / (t + 1) : t
        let z = u * u
        let poly = (((0.080_537_444_95 * z - 0.138_776_856_0) * z + 0.199_777_106_5) * z - 0.333_329_491_5) * z * u + u
        var a = far ? poly + pi / 4 : poly
        a = ay > ax ? pi / 2 - a : a
        a = x < 0 ? pi - a : a
        return y < 0 ? -a : a
    }

    /// The angle 0...π whose cosine is x, for x in -1...1 (as GLSL's `acos`): from the arcsine
    /// of x where |x| ≤ 0.5, else of sqrt((1 - |x|) / 2), half the angle from the nearer end.
    @inline(__always) static func acos(_ x: Float) -> Float {
        let far = abs(x) > 0.5
        let s = far ? (0.5 - 0.5 * abs(x)).squareRoot() : x
        let z = s * s
        let asin = ((((0.042_163_199_048 * z + 0.024_181_311_049) * z + 0.045_470_025_998) * z + 0.074_953_002_686) * z
            + 0.166_667_524_22) * z * s + s
        return far ? (x < 0 ? pi - 2 * asin : 2 * asin) : pi / 2 - asin
    }

    /// x to the power y for x in 0...1 and y > 0, as GLSL defines `pow`: exp2(y log2(x)), with
    /// Cephes' `log2f` (x's exponent, its mantissa about 1 in a polynomial) and `exp2f` (the
    /// nearest whole power and a polynomial of the rest); 0 where x is 0 or below the least
    /// normal number, as a GPU flushes. The rounding of y log2(x) grows with it: over 0.001...1
    /// a fifth root is within 4 units in the last place of libm's `powf` and a cube within
    /// 1.7e-6 of it, relatively; 1e-5 at worst down to 1e-30 (`GLMathTests`). In plain
    /// arithmetic, so that a row of it vectorises (curl.c has the same operations).
    @inline(__always) static func pow(_ x: Float, _ y: Float) -> Float {
        var e = Int32(truncatingIfNeeded: x.bitPattern >> 23) - 127
        var m = Float(bitPattern: (x.bitPattern & 0x007F_FFFF) | 0x3F80_0000)
        let big = m > 1.414_213_56
        m = big ? m * 0.5 : m
        e = big ? e + 1 : e
        let f = m - 1, z = f * f
        var p: Float = 7.037_683_629_2e-2
        p = p * f - 1.151_461_031_0e-1
        p = p * f + 1.167_699_874_0e-1
        p = p * f - 1.242_014_084_6e-1
        p = p * f + 1.424_932_278_7e-1
        p = p * f - 1.666_805_766_5e-1
        p = p * f + 2.000_071_476_5e-1
        p = p * f - 2.499_999_399_3e-1
        p = p * f + 3.333_333_117_4e-1
        let l = p * f * z - 0.5 * z
        let log2e: Float = 0.442_695_040_888_963_407_36
        let power = y * (l * log2e + f * log2e + l + f + Float(e))
        let c = power >= -126 ? min(power, 127) : -126, n = floor(c + 0.5), g = c - n
        var q: Float = 1.535_336_188_319_500e-4
        q = q * g + 1.339_887_440_266_574e-3
        q = q * g + 9.618_437_357_674_640e-3
        q = q * g + 5.550_332_471_162_809e-2
        q = q * g + 2.402_264_791_363_012e-1
        q = q * g + 6.931_472_028_550_421e-1
        q = q * g + 1
        let scale = Float(bitPattern: UInt32(truncatingIfNeeded: Int32(n) + 127) << 23)
        return x >= .leastNormalMagnitude && power >= -126 ? q * scale : 0
    }

    /// sin x and cos x at once.
    @inline(__always) static func sincos(_ x: Float) -> (sin: Float, cos: Float) {
        // The nearest multiple of π/2, its quadrant in the rounded sum's low bits.
        let q = x * (2 / pi) + rounder
        let k = q - rounder
        let quadrant = q.bitPattern & 3
        // x - kπ/2 in three parts (Cody and Waite), exact for |k| up to about 2¹².
        let r = ((x - k * 1.570_312_5) - k * 4.837_512_969_970_703e-4) - k * 7.549_789_954_891_2e-8
        let z = r * r
        let s = ((-1.951_529_589_1e-4 * z + 8.332_160_873_6e-3) * z - 1.666_665_461_1e-1) * z * r + r
        let c = ((2.443_315_711_809_948e-5 * z - 1.388_731_625_493_765e-3) * z + 4.166_664_568_298_827e-2) * z * z - 0.5 * z + 1
        let sin = quadrant & 1 == 0 ? s : c, cos = quadrant & 1 == 0 ? c : s
        return (quadrant & 2 == 0 ? sin : -sin, (quadrant &+ 1) & 2 == 0 ? cos : -cos)
    }

    @inline(__always) static func sin(_ x: Float) -> Float { sincos(x).sin }
    @inline(__always) static func cos(_ x: Float) -> Float { sincos(x).cos }
}
