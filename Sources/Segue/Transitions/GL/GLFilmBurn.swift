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

    public func shader(_ f: GLFrame) -> GLShader {
        let seed = values.float(Self.seed), p = f.progress, pi: Float = 3.14159265358979323
        func sigmoid(_ x: Float, _ a: Float) -> Float { x > 0.5 ? 1 - powf(2 - x * 2, a) / 2 : powf(x * 2, a) / 2 }
        func rand(_ co: Float) -> Float { GLSL.fract(sinf(co * 24.9898 + seed) * 43758.5453) }
        func smoothMix(_ a: Float, _ b: Float, _ c: Float) -> Float { GLSL.mix(a, b, sigmoid(c, 2)) }
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
        // What every pixel shares: each of the 13 waves' and flares' numbers, the zoom, the blur's directions.
        let waves = (0..<13).map { k -> (x: Float, xPhase: Float, y: Float, yPhase: Float, center: vec2, sharp: Float) in
            let i = Float(k)
            return (rand(i) * 6, rand(i + 1.43), rand(i + 4.4) * 6, rand(i + 2.4),
                    vec2(smoothRandom(vec2(repeating: p * 1.3), i + 1), smoothRandom(vec2(repeating: p * 0.5), i + 6.25)),
                    GLSL.mix(20, 70, rand(i)))
        }
        let glow = sinf(p * pi), tint = vec3(1, 0.7, 0.6), power = vec3(1, 2 - glow, 1.3)
        let zoom = 1 + smoothRandom(vec2(repeating: p * 5), 6.3) * glow * 0.05
        let blur = glow * 0.03, repeats = 50
        let directions = (0..<repeats).map { k -> vec2 in
            let degrees = Float(k) / Float(repeats) * 360 * (180 / pi)
            return vec2(cosf(degrees), sinf(degrees))
        }
        let fade = sigmoid(p, 10)
        return { uv in
            var light: Float = 0
            for w in waves {
                light += sinf(uv.x * w.x + p * 8 + w.xPhase) * sinf(uv.y * w.y + p * 6 + w.yPhase)
                light += 1 - GLSL.clamp(GLSL.distance(uv, w.center) * w.sharp, 0, 1)
            }
            light = (light + 4) / 11
            var rgb = vec3(repeating: light) * tint
            rgb = vec3(powf(abs(rgb.x), power.x), powf(abs(rgb.y), power.y), powf(abs(rgb.z), power.z)) * glow
            let q = (uv - 0.5) * zoom + 0.5
            var sum = vec4.zero
            for (k, d) in directions.enumerated() {
                let s = q + d * (GLSL.rand(vec2(Float(k), q.x + q.y)) + blur) * blur
                sum += GLSL.mix(f.from(s), f.to(s), fade)
            }
            return sum / Float(repeats) + vec4(rgb.x, rgb.y, rgb.z, 0)
        }
    }
}
