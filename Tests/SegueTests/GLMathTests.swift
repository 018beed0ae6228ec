import Foundation
import Testing
@testable import Segue

/// The ports' libm-free `floor`, `atan`, `sin` and `cos` (`GLMath.swift`) against libm's, over
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

    @Test("sin and cos within 1e-6 of libm's for angles up to ±2000")
    func sines() {
        var worst: Float = 0
        for x in Self.numbers where abs(x) <= 2_000 {
            let (s, c) = GLSL.sincos(x)
            worst = max(worst, abs(s - sinf(x)), abs(c - cosf(x)))
        }
        #expect(worst < 1e-6, "worst error \(worst)")
        #expect(GLSL.sin(0) == 0 && GLSL.cos(0) == 1)
    }
}
