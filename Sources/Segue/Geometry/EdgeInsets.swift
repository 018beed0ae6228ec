/// Margins, each a fraction of a side: a canvas's safe area.
public struct EdgeInsets: Equatable, Sendable {
    public var top = 0.0, right = 0.0, bottom = 0.0, left = 0.0

    public init(top: Double = 0, right: Double = 0, bottom: Double = 0, left: Double = 0) {
        (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
    }

    public var isZero: Bool { self == EdgeInsets() }
}
