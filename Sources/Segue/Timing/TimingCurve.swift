import Foundation

/// How a transition's linear progress (0...1) becomes the progress it is drawn at, as
/// CAMediaTimingFunction does.
public enum TimingCurve: Equatable, Hashable, Sendable, CustomStringConvertible {
    case linear
    /// Core Animation's easeIn: cubic-bezier(0.42, 0, 1, 1).
    case easeIn
    /// Core Animation's easeOut: cubic-bezier(0, 0, 0.58, 1).
    case easeOut
    /// Core Animation's easeInEaseOut: cubic-bezier(0.42, 0, 0.58, 1).
    case easeInEaseOut
    /// A cubic Bézier from (0, 0) to (1, 1) through the control points (x1, y1) and (x2, y2);
    /// x1 and x2 must lie in 0...1.
    case cubicBezier(Double, Double, Double, Double)
    /// A spring released from 0 toward 1: `dampingRatio` in 0.05...2 (below 1 it overshoots
    /// and bounces), `frequency` its undamped oscillations per transition, in 0.1...20.
    /// Its small remaining swing at the end is folded in smoothly, so it ends exactly at 1.
    case spring(dampingRatio: Double, frequency: Double)

    /// The names a preset may use; `cubic-bezier(x1, y1, x2, y2)` is accepted too.
    public static let names = ["linear", "easeIn", "easeOut", "easeInEaseOut", "cubic-bezier(x1, y1, x2, y2)",
                               "spring(dampingRatio, frequency)"]

    /// Parses a curve name or `cubic-bezier(x1, y1, x2, y2)`; nil if it is neither.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "linear": self = .linear
        case "easeIn": self = .easeIn
        case "easeOut": self = .easeOut
        case "easeInEaseOut": self = .easeInEaseOut
        default:
            func arguments(_ name: String) -> [Double]? {
                guard trimmed.hasPrefix(name + "("), trimmed.hasSuffix(")") else { return nil }
                let numbers = trimmed.dropFirst(name.count + 1).dropLast().split(separator: ",")
                    .map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard numbers.allSatisfy({ $0?.isFinite == true }) else { return nil }
                return numbers.map { $0! }
            }
            if let n = arguments("cubic-bezier"), n.count == 4, (0...1).contains(n[0]), (0...1).contains(n[2]) {
                self = .cubicBezier(n[0], n[1], n[2], n[3])
            } else if let n = arguments("spring"), n.count == 2, (0.05...2).contains(n[0]), (0.1...20).contains(n[1]) {
                self = .spring(dampingRatio: n[0], frequency: n[1])
            } else {
                return nil
            }
        }
    }

    public var description: String {
        switch self {
        case .linear: return "linear"
        case .easeIn: return "easeIn"
        case .easeOut: return "easeOut"
        case .easeInEaseOut: return "easeInEaseOut"
        case let .cubicBezier(x1, y1, x2, y2): return "cubic-bezier(\(x1), \(y1), \(x2), \(y2))"
        case let .spring(dampingRatio, frequency): return "spring(\(dampingRatio), \(frequency))"
        }
    }

    /// The control points of the curve's Bézier.
    public var controlPoints: (x1: Double, y1: Double, x2: Double, y2: Double) {
        switch self {
        case .linear: return (0, 0, 1, 1)
        case .easeIn: return (0.42, 0, 1, 1)
        case .easeOut: return (0, 0, 0.58, 1)
        case .easeInEaseOut: return (0.42, 0, 0.58, 1)
        case let .cubicBezier(x1, y1, x2, y2): return (x1, y1, x2, y2)
        case .spring: return (0, 0, 1, 1)
        }
    }

    /// The eased progress for linear progress `t`; exactly 0 at 0 and 1 at 1.
    public func callAsFunction(_ t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= 1 { return 1 }
        if self == .linear { return t }
        if case let .spring(zeta, frequency) = self {
            let x = TimingCurve.spring(t, zeta: zeta, omega: 2 * Double.pi * frequency)
            let end = TimingCurve.spring(1, zeta: zeta, omega: 2 * Double.pi * frequency)
            return x + (1 - end) * t * t * t
        }
        let c = controlPoints
        // Solve x(s) = t for the curve parameter s (x is monotonic since x1, x2 are in 0...1),
        // by Newton's method with a bisection fallback, then evaluate y(s).
        func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - s
            return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
        }
        func slope(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - s
            return 3 * u * u * p1 + 6 * u * s * (p2 - p1) + 3 * s * s * (1 - p2)
        }
        var s = t
        for _ in 0..<8 {
            let error = bezier(s, c.x1, c.x2) - t
            if abs(error) < 1e-12 { return bezier(s, c.y1, c.y2) }
            let d = slope(s, c.x1, c.x2)
            if abs(d) < 1e-9 { break }
            s -= error / d
        }
        var low = 0.0, high = 1.0
        s = t
        for _ in 0..<60 {
            let x = bezier(s, c.x1, c.x2)
            if abs(x - t) < 1e-12 { break }
            if x < t { low = s } else { high = s }
            s = (low + high) / 2
        }
        return bezier(s, c.y1, c.y2)
    }

    /// A unit spring's position at time t: released at 0 with no speed, pulled toward 1.
    static func spring(_ t: Double, zeta: Double, omega: Double) -> Double {
        if zeta < 1 {
            let damped = omega * (1 - zeta * zeta).squareRoot()
            return 1 - exp(-zeta * omega * t) * (cos(damped * t) + zeta * omega / damped * sin(damped * t))
        }
        if zeta == 1 { return 1 - (1 + omega * t) * exp(-omega * t) }
        let root = (zeta * zeta - 1).squareRoot()
        let r1 = -omega * (zeta - root), r2 = -omega * (zeta + root)
        let c1 = r2 / (r1 - r2), c2 = -1 - c1
        return 1 + c1 * exp(r1 * t) + c2 * exp(r2 * t)
    }
}
