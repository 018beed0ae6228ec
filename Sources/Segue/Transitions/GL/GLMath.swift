import CSegueKernels

/// GLSL's `floor` and `atan` in plain arithmetic: no call into libm, no conversion to an
/// integer (each a range check in Swift), so that a loop of a port's pixels can be vectorised.
/// `atan`'s polynomial is Cephes' single-precision one (Stephen L. Moshier, MIT-compatible, as
/// in its `atanf.c`): within a few units in the last place of libm's, as close as a GPU's own
/// `atan` comes to the true value. `sin`, `cos`, `acos` and `pow`, which ports in C use too,
/// are written once, in C (`CSegueKernels/include/segue_glsl.h`).
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

    /// sin x and cos x, as the ports in C have them (`segue_glsl.h`: the one implementation).
    @inline(__always) static func sin(_ x: Float) -> Float { segue_glsl_sin(x) }
    @inline(__always) static func cos(_ x: Float) -> Float { segue_glsl_cos(x) }
}
