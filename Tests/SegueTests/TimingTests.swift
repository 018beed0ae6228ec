import Foundation
import Testing
@testable import Segue

@Suite("Timing curves and the timeline")
struct TimingTests {
    /// A point of the Bézier with control points (x1, y1), (x2, y2) at parameter s.
    func bezierPoint(_ c: (x1: Double, y1: Double, x2: Double, y2: Double), _ s: Double) -> (Double, Double) {
        let u = 1 - s
        return (3 * u * u * s * c.x1 + 3 * u * s * s * c.x2 + s * s * s, 3 * u * u * s * c.y1 + 3 * u * s * s * c.y2 + s * s * s)
    }

    @Test("curves pass through their Bézier's points", arguments: [TimingCurve.easeIn, .easeOut, .easeInEaseOut, .cubicBezier(0.25, 0.1, 0.25, 1)])
    func bezier(curve: TimingCurve) {
        for s in stride(from: 0.05, to: 1, by: 0.05) {
            let (x, y) = bezierPoint(curve.controlPoints, s)
            #expect(close(curve(x), y, 1e-9), "\(curve) at x = \(x)")
        }
        #expect(curve(0) == 0 && curve(1) == 1 && curve(-1) == 0 && curve(2) == 1)
    }

    @Test("easeInEaseOut has Core Animation's control points and is symmetric")
    func easeInEaseOut() {
        let c = TimingCurve.easeInEaseOut.controlPoints
        #expect(c.x1 == 0.42 && c.y1 == 0 && c.x2 == 0.58 && c.y2 == 1)
        for t in stride(from: 0.0, through: 1, by: 0.1) {
            #expect(close(TimingCurve.easeInEaseOut(t) + TimingCurve.easeInEaseOut(1 - t), 1, 1e-9))
        }
        #expect(TimingCurve.easeInEaseOut(0.25) < 0.25)
    }

    @Test("curve names parse")
    func parsing() {
        #expect(TimingCurve(parsing: "easeInEaseOut") == .easeInEaseOut)
        #expect(TimingCurve(parsing: "cubic-bezier(0.1, 0.7, 1.0, 0.1)") == .cubicBezier(0.1, 0.7, 1, 0.1))
        #expect(TimingCurve(parsing: "cubic-bezier(1.5, 0, 0, 1)") == nil)
        #expect(TimingCurve(parsing: "bouncy") == nil)
    }

    @Test("frame count is round(fps x (N hold + (N - 1) duration))")
    func frameCount() {
        #expect(Timeline(screenCount: 3, fps: 30, hold: 2, duration: 0.5, curve: .linear).frameCount == 210)
        #expect(Timeline(screenCount: 4, fps: 30, hold: 1.75, duration: 0.5, curve: .linear).frameCount == 255)
        #expect(Timeline(screenCount: 2, fps: 24, hold: 1.01, duration: 0.33, curve: .linear).frameCount == 56) // 55.92
        #expect(Timeline(screenCount: 1, fps: 30, hold: 2, duration: 0.5, curve: .linear).frameCount == 60)
    }

    @Test("frame i shows time i / fps: holds, then linear progress (t - start) / duration, eased")
    func moments() {
        let t = Timeline(screenCount: 3, fps: 30, hold: 2, duration: 0.5, curve: .easeInEaseOut)
        #expect(t.moment(at: 0) == .hold(index: 0))
        #expect(t.moment(at: 59) == .hold(index: 0))
        #expect(t.moment(at: 60) == .transition(step: 0, progress: 0, linear: 0))
        let m = t.moment(at: 66) // t = 2.2 s: linear 0.4
        guard case let .transition(from, progress, linear) = m else { Issue.record("\(m)"); return }
        #expect(from == 0 && close(linear, 0.4, 1e-12) && close(progress, TimingCurve.easeInEaseOut(0.4), 1e-12))
        #expect(t.moment(at: 75) == .hold(index: 1)) // t = 2.5 s
        #expect(t.moment(at: 135) == .transition(step: 1, progress: 0, linear: 0)) // t = 4.5 s
        #expect(t.moment(at: 209) == .hold(index: 2))
        #expect(t.transitionStart(0) == 2 && t.transitionStart(1) == 4.5)
    }
}

@Suite("Spring timing curve")
struct SpringTests {
    @Test("an underdamped spring overshoots, then settles exactly on 1")
    func underdamped() {
        let curve = TimingCurve(parsing: "spring(0.3, 2)")!
        #expect(curve == .spring(dampingRatio: 0.3, frequency: 2))
        let samples = stride(from: 0.0, through: 1, by: 0.01).map { curve($0) }
        #expect(samples.max()! > 1.2)
        #expect(samples.first == 0 && samples.last == 1)
        // The position follows the damped oscillator: 1 - e^(-ζωt)(cos ω_d t + ζω/ω_d sin ω_d t), plus the end fold.
        let t = 0.2, w = 2 * Double.pi * 2, wd = w * (1 - 0.09).squareRoot()
        let raw = 1 - exp(-0.3 * w * t) * (cos(wd * t) + 0.3 * w / wd * sin(wd * t))
        #expect(abs(curve(t) - raw) < 0.001)
    }

    @Test("critically damped and overdamped springs rise without overshoot")
    func damped() {
        for text in ["spring(1, 1.5)", "spring(1.8, 1.5)"] {
            let curve = TimingCurve(parsing: text)!
            let samples = stride(from: 0.0, through: 1, by: 0.01).map { curve($0) }
            #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 + 1e-12 }, "\(text)")
            #expect(samples.last == 1 && samples.max()! <= 1)
        }
    }

    @Test("out-of-range springs are refused")
    func refused() {
        #expect(TimingCurve(parsing: "spring(0, 1)") == nil && TimingCurve(parsing: "spring(0.5)") == nil && TimingCurve(parsing: "spring(0.5, 50)") == nil)
    }
}
