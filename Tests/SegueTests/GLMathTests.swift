import CSegueKernels
import Foundation
import Testing
@testable import Segue

/// The ports' libm-free `floor` and `atan` (`GLMath.swift`) and `acos`, `pow`, `sin` and `cos`
/// (`segue_glsl.h`, which the ports in C use too) against libm's, over
/// the ranges the ports use: a port that swapped libm for them must not move a pixel by more
/// than a GPU's own functions would.
@Suite("GLSL's functions in plain arithmetic")
struct GLMathTests {
    /// Numbers of every sign and size below 2²², with whole numbers and halves among them
    /// (the same every run: a xorshift from a fixed seed).
    static let numbers: [Float] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func unit() -> Float {   // -1...1
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state >> 40) / Float(1 << 23) - 1
        }
        var xs: [Float] = [0, -0.0, 0.5, -0.5, 1, -1, 2.5, -2.5, 4_194_303.5, -4_194_303.5, 1e-30, -1e-30]
        for scale: Float in [1, 10, 1_000, 100_000, 4_000_000] {
            xs += (0..<20_000).map { _ in unit() * scale }
            xs += (0..<200).map { _ in (unit() * scale).rounded() }
        }
        return xs
    }()

    @Test("floor is libm's for every number below 2²²; fract and mod follow it")
    func floors() {
        for x in Self.numbers {
            #expect(GLSL.floor(x) == x.rounded(.down), "floor(\(x))")
            #expect(GLSL.fract(x) == x - x.rounded(.down), "fract(\(x))")
        }
        #expect(GLSL.mod(-0.5, 2) == 1.5)
        #expect(GLSL.mod(5, 2) == 1)
    }

    @Test("atan(y, x) within 4e-7 of libm's atan2 all round the circle, on the axes and at the origin")
    func arctangents() {
        var worst: Float = 0
        for i in 0..<20_000 {
            let angle = Float(i) / 20_000 * 2 * .pi - .pi, radius = Float(i % 97 + 1) / 50
            let x = radius * cosf(angle), y = radius * sinf(angle)
            worst = max(worst, abs(GLSL.atan(y, x) - atan2f(y, x)))
        }
        #expect(worst < 4e-7, "worst error \(worst)")
        for (y, x) in [(0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (-1, -1), (0, 0)] as [(Float, Float)] {
            #expect(abs(GLSL.atan(y, x) - atan2f(y, x)) < 4e-7, "atan(\(y), \(x))")
        }
    }

    @Test("acos within 4e-7 of libm's over -1...1, its ends and middle exact")
    func arccosines() {
        var worst: Float = 0
        for i in 0...40_000 {
            let x = Float(i) / 20_000 - 1
            worst = max(worst, abs(segue_glsl_acos(x) - acosf(x)))
        }
        #expect(worst < 4e-7, "worst error \(worst)")
        #expect(segue_glsl_acos(1) == 0 && segue_glsl_acos(-1) == GLSL.pi && segue_glsl_acos(0) == GLSL.pi / 2)
    }

    @Test("pow within 1e-5 of libm's, relatively, for x in 0...1 down to 1e-30; exact at 0, 1 and a half cubed")
    func powers() {
        var worst: Float = 0
        for y: Float in [0.2, 0.5, 1.7, 3] {
            var x: Float = 1e-30
            while x <= 1 {
                let libm = powf(x, y)
                if libm >= .leastNormalMagnitude { worst = max(worst, abs(segue_glsl_pow(x, y) - libm) / libm) }
                x *= 1.013
            }
            #expect(segue_glsl_pow(1, y) == 1 && segue_glsl_pow(0, y) == 0, "pow(1 or 0, \(y))")
        }
        #expect(worst < 1e-5, "worst relative error \(worst)")
        #expect(segue_glsl_pow(0.5, 3) == 0.125)
    }

    @Test("sin and cos within 1e-6 of libm's for angles up to ±2000")
    func sines() {
        var worst: Float = 0
        for x in Self.numbers where abs(x) <= 2_000 {
            let (s, c) = (GLSL.sin(x), GLSL.cos(x))
            worst = max(worst, abs(s - sinf(x)), abs(c - cosf(x)))
        }
        #expect(worst < 1e-6, "worst error \(worst)")
        #expect(GLSL.sin(0) == 0 && GLSL.cos(0) == 1)
    }
}

/// The ports whose colour is an affine map of the two texels (`GLAffineMix`, and windowblinds a
/// row at a time): their rows against the same port's `mix` run on every pixel; and dissolve's
/// rim colour, read off a table.
@Suite("gl-transitions' affine mixes")
struct GLAffineTests {
    /// Premultiplied pixels, some transparent, the same every run.
    static func pixels(_ count: Int, seed: UInt32) -> [UInt32] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            let alpha = state >> 24 < 64 ? state >> 24 : 255, r = (state >> 4 & 255) * alpha / 255
            let g = (state >> 12 & 255) * alpha / 255, b = (state >> 16 & 255) * alpha / 255
            return r | g << 8 | b << 16 | alpha << 24
        }
    }

    @Test("each port's kernel rows are its per-pixel mix within one level", arguments: [
        GLFadeColor() as any GLMix, GLBurn(), GLColorPhase(), GLFadeGrayscale(), GLWindowBlinds(), GLMultiplyBlend(),
        GLFadeColor().with(GLFadeColor.color, [0.9, 0.2, 0.6]).with(GLFadeColor.colorPhase, 0.7),
    ])
    func kernelRows(port: any GLMix) {
        let width = 97, height = 40, a = Self.pixels(width * height, seed: 1), b = Self.pixels(width * height, seed: 2)
        func frame(_ rows: PixelRows) -> [UInt32] {
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    let pages = PagePictures(a: a.baseAddress!, b: b.baseAddress!, width: width, height: height)
                    return [UInt32](unsafeUninitializedCapacity: width * height) { out, count in
                        for y in 0..<height { rows(y, pages, out.baseAddress! + y * width) }
                        count = width * height
                    }
                }
            }
        }
        for progress in [0.1, 0.37, 0.55, 0.8, 0.97] {
            let fast = frame(port.rows(progress: progress, width: width, height: height))
            let plain = frame(port.mixRows(progress: progress, width: width, height: height))
            var worst = 0
            for (p, q) in zip(fast, plain) {
                for shift in stride(from: 0, to: 32, by: 8) {
                    let d = Int(p >> UInt32(shift) & 255) - Int(q >> UInt32(shift) & 255)
                    worst = max(worst, abs(d))
                }
            }
            #expect(worst <= 1, "\(type(of: port).name) at \(progress): a channel \(worst) levels off")
        }
    }

    @Test("dissolve's rim colour read off its table, between two steps, is within 1e-4 of the power's, for powers to 100")
    func dissolveHeats() {
        for port in [GLDissolve(), GLDissolve().with(GLDissolve.power, 60).with(GLDissolve.intensity, 3), GLDissolve().with(GLDissolve.power, 100)] {
            let k = port.frame(0.5), heats = port.heats(k), steps = Float(GLDissolve.heatSteps)
            var worst: Float = 0
            for i in 0...10_000 {
                let f = Float(i) / 10_000, t = f * steps, j = min(Int(t), GLDissolve.heatSteps - 1)
                let read = heats[j] + (heats[j + 1] - heats[j]) * (t - Float(j)), exact = port.heat(f, k)
                let d = read - exact
                worst = max(worst, max(abs(d.x), abs(d.y), abs(d.z)) / max(1, k.intensity))
            }
            #expect(worst < 1e-4, "power \(k.power): worst \(worst)")
        }
    }

    @Test("a map the kernel's integers cannot hold, not a number, or a mix that is no such map is refused (the port then mixes per pixel)")
    func refused() {
        #expect(GLAffine.map { a, b in a * 9 + b } == nil)
        #expect(GLAffine.map { a, _ in a + vec4(repeating: .nan) } == nil)
        #expect(GLAffine.map { a, b in a * a + b } == nil)
        #expect(GLAffine.map { a, b in a * vec4(b.z, b.y, b.x, b.w) } == nil)
        let map = GLAffine.map { a, b in a * 0.25 + b * 0.5 + a * b * 2 + vec4(0, 0, 0, 1) }
        #expect(map?.count == 40)
        #expect(map?[0] == 16384 && map?[4] == 32768 && map?[8] == 514 && map?[9] == 0 && map?[39] == 255 * 65536)
    }
}
