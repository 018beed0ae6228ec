import CSegueKernels
import Foundation

/// gl-transitions' `FilmBurn` by Anastasia Dunbar (MIT): light leaks flare over a softly
/// jittered blur as the pictures cross. Ported from FilmBurn.glsl. Its randomness is the sine
/// hash of shaders, evaluated in single precision as a GPU does; what a frame shares (the
/// flares' places, the blur's 50 directions) is computed once a frame.
public struct GLFilmBurn: GLTransition {
    public static let file = "FilmBurn", authors = "Anastasia Dunbar"
    public static let summary = "Light leaks flare over a jittered blur, as on burnt film (gl-transitions FilmBurn)."
    public static let family = TransitionFamily.mixes
    public static let seed = Parameter.number("Seed", default: 2.31, in: -1000...1000, "Where the pseudo-random flares start.")
    public static let parameters = [seed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The pages mixed once a frame: both pages are read at each of the blur's points, mixed by the fade.
    public func premix(progress: Double) -> Float? { Self.sigmoid(Float(progress), 10) }

    /// The file's sigmoid: (2x)^a / 2 below a half, mirrored above it.
    static func sigmoid(_ x: Float, _ a: Float) -> Float { x > 0.5 ? 1 - powf(2 - x * 2, a) / 2 : powf(x * 2, a) / 2 }

    /// What every pixel of a frame shares: the 13 waves' and flares' numbers, the light's
    /// tint and powers, the zoom, the blur's amount and 50 directions, the cross-fade's weight.
    struct Burn {
        typealias Wave = (x: Float, xPhase: Float, y: Float, yPhase: Float, center: vec2, sharp: Float)
        let p: Float, waves: [Wave], glow: Float, tint: vec3, power: vec3, zoom: Float, blur: Float, directions: [vec2], fade: Float
    }

    func burn(_ p: Float) -> Burn {
        let seed = values.float(Self.seed), pi: Float = 3.14159265358979323
        func rand(_ co: Float) -> Float { GLSL.fract(sinf(co * 24.9898 + seed) * 43758.5453) }
        func smoothMix(_ a: Float, _ b: Float, _ c: Float) -> Float { GLSL.mix(a, b, Self.sigmoid(c, 2)) }
        func random(_ co: vec2, _ shift: Float) -> Float {
            let co = co + 10
            func hash(_ k: Float) -> Float { GLSL.fract(sinf(GLSL.dot(co, vec2(12.9898 + k * 0.5, 78.233 + seed))) * 43758.5453) }
            return smoothMix(hash(shift.rounded(.down)), hash((shift + 1).rounded(.down)), GLSL.fract(shift))
        }
        func smoothRandom(_ co: vec2, _ shift: Float) -> Float {
            let c = co.rounded(.down), fx = GLSL.fract(co.x)
            return smoothMix(smoothMix(random(c, shift), random(c + vec2(1, 0), shift), fx),
                             smoothMix(random(c + vec2(0, 1), shift), random(c + vec2(1, 1), shift), fx), GLSL.fract(co.y))
        }
        let waves = (0..<13).map { k -> Burn.Wave in
            let i = Float(k)
            return (rand(i) * 6, rand(i + 1.43), rand(i + 4.4) * 6, rand(i + 2.4),
                    vec2(smoothRandom(vec2(repeating: p * 1.3), i + 1), smoothRandom(vec2(repeating: p * 0.5), i + 6.25)),
                    GLSL.mix(20, 70, rand(i)))
        }
        let glow = sinf(p * pi), repeats = 50
        let directions = (0..<repeats).map { k -> vec2 in
            let degrees = Float(k) / Float(repeats) * 360 * (180 / pi)
            return vec2(cosf(degrees), sinf(degrees))
        }
        return Burn(p: p, waves: waves, glow: glow, tint: vec3(1, 0.7, 0.6), power: vec3(1, 2 - glow, 1.3),
                    zoom: 1 + smoothRandom(vec2(repeating: p * 5), 6.3) * glow * 0.05, blur: glow * 0.03, directions: directions,
                    fade: Self.sigmoid(p, 10))
    }

    /// The light leaks' colour from the light's sum over the waves and flares.
    @inline(__always) static func lit(_ light: Float, _ k: Burn) -> vec3 {
        let rgb = vec3(repeating: (light + 4) / 11) * k.tint
        return vec3(powf(abs(rgb.x), k.power.x), powf(abs(rgb.y), k.power.y), powf(abs(rgb.z), k.power.z)) * k.glow
    }

    /// A row at a time: the light in Swift, wave by wave over the row (each wave's sine across
    /// made once a frame, the one down once a row), the blur in C (`segue_filmburn_row`), each
    /// of its 50 samples a vectorised loop over the row's pixels. Its hash's sine is in plain
    /// arithmetic there, so its noise is not libm's (nor is llvmpipe's).
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = burn(Float(progress)), p = k.p, us = GLFrame.columns(width), fade = UInt32(PagePictures.fixed(k.fade))
        let across = k.waves.map { w in us.map { sinf($0 * w.x + p * 8 + w.xPhase) } }
        let qx = us.map { ($0 - 0.5) * k.zoom + 0.5 }, directions = k.directions.flatMap { [$0.x, $0.y] }
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / Float(height)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 8 * width) { buffer in
                let light = buffer.baseAddress!, scratch = UnsafeMutableRawPointer(light + 4 * width).assumingMemoryBound(to: UInt32.self)
                light.initialize(repeating: 0, count: width)
                for (w, sines) in zip(k.waves, across) {
                    let down = sinf(v * w.y + p * 6 + w.yPhase), cx = w.center.x, cy = w.center.y, sharp = w.sharp
                    sines.withUnsafeBufferPointer { sines in
                        us.withUnsafeBufferPointer { us in
                            for x in 0..<width {
                                light[x] += sines[x] * down
                                let dx = us[x] - cx, dy = v - cy
                                light[x] += 1 - GLSL.clamp((dx * dx + dy * dy).squareRoot() * sharp, 0, 1)
                            }
                        }
                    }
                }
                for x in 0..<width {
                    let rgb = Self.lit(light[x], k)
                    (light[x], light[width + x], light[2 * width + x]) = (rgb.x, rgb.y, rgb.z)
                }
                qx.withUnsafeBufferPointer { qx in
                    directions.withUnsafeBufferPointer { directions in
                        segue_filmburn_row(out, pages.a, pages.b, Int32(width), Int32(height), qx.baseAddress!, (v - 0.5) * k.zoom + 0.5, light,
                                           directions.baseAddress!, k.blur, fade, scratch, Int32(width))
                    }
                }
            }
        }
    }
}
