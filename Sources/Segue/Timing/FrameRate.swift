import Foundation

/// Frames per second as an exact fraction: 30 is 30/1, and the NTSC rates 29.97, 23.976 and
/// 59.94 are 30000/1001, 24000/1001 and 60000/1001, as broadcast and editors mean them.
/// Frame i shows time i × denominator / numerator.
public struct FrameRate: Hashable, Sendable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int

    /// A whole number of frames per second.
    public init(_ perSecond: Int) {
        precondition(perSecond > 0)
        numerator = perSecond
        denominator = 1
    }

    /// `numerator / denominator`, reduced; nil unless both are positive.
    public init?(numerator: Int, denominator: Int) {
        guard numerator > 0, denominator > 0 else { return nil }
        let d = FrameRate.gcd(numerator, denominator)
        self.numerator = numerator / d
        self.denominator = denominator / d
    }

    /// Reads `30`, `30000/1001`, or a decimal: `29.97`, `23.976`, `59.94` (and any rate 1001
    /// below a whole number of thousands, written to two or three decimals) are the NTSC
    /// fractions; any other decimal is taken exactly (`12.5` is 25/2).
    public init?(parsing text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let n = Int(parts[0]), let d = Int(parts[1]) else { return nil }
            self.init(numerator: n, denominator: d)
            return
        }
        if let whole = Int(text) {
            self.init(numerator: whole, denominator: 1)
            return
        }
        // A decimal, read digit by digit so that 29.97 is not a binary approximation.
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 2, let whole = Int(pieces[0]), !pieces[1].isEmpty, pieces[1].count <= 6,
              pieces[1].allSatisfy(\.isASCIIDigit), let fraction = Int(pieces[1]) else { return nil }
        var scale = 1
        for _ in pieces[1] { scale *= 10 }
        let exact = Double(whole) + Double(fraction) / Double(scale)
        // The NTSC family: 1000 × k / 1001, which 29.97 and 23.976 round.
        let k = (exact * 1.001).rounded()
        if k >= 1, abs(exact - k * 1000 / 1001) < 0.006, Double(Int(exact)) != exact {
            self.init(numerator: Int(k) * 1000, denominator: 1001)
        } else {
            self.init(numerator: whole * scale + fraction, denominator: scale)
        }
    }

    /// Frames per second as a number.
    public var value: Double { Double(numerator) / Double(denominator) }

    /// Frames in about a second: the rate rounded up.
    public var perSecond: Int { (numerator + denominator - 1) / denominator }

    /// The time frame `index` shows, in seconds.
    public func time(ofFrame index: Int) -> Double { Double(index) * Double(denominator) / Double(numerator) }

    /// How many frames `seconds` last (not rounded).
    public func frames(in seconds: Double) -> Double { seconds * Double(numerator) / Double(denominator) }

    /// `30` for a whole rate, else `30000/1001`.
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

extension FrameRate: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self.init(value) }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
