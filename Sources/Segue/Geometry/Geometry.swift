/// A point in a 2D coordinate space: points in a scene, pixels on a canvas, texels in an image.
public struct Point: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(x: 0, y: 0)
    public var description: String { "(\(x), \(y))" }
}

/// A width and a height.
public struct Size: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
    public static let zero = Size(width: 0, height: 0)
    public var description: String { "\(width)x\(height)" }
}

/// An axis-aligned rectangle with its origin at the top left (y grows downward).
public struct Rect: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var origin: Point
    public var size: Size
    public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }
    public init(size: Size) { self.init(origin: .zero, size: size) }

    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { size.width }
    public var height: Double { size.height }
    public var description: String { "(\(origin.x), \(origin.y), \(size.width), \(size.height))" }

    /// True when the two rectangles share an area; touching edges do not count (as CGRect.intersects).
    public func intersects(_ other: Rect) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }
}

/// How an image is laid into a rectangle of another shape.
public enum ContentsGravity: String, Sendable, Codable, CaseIterable {
    /// Scaled to cover the rectangle, centered, the overflow cropped (aspect fill).
    case fill
    /// Scaled to fit inside the rectangle, centered, the rest left to the background (aspect fit).
    case fit
    /// Scaled to the rectangle's exact size, ignoring aspect ratio.
    case stretch

    /// The part of `image` (in its own units) that is shown, and the part of `bounds` it covers.
    public func placement(of image: Size, in bounds: Rect) -> (source: Rect, destination: Rect) {
        let full = Rect(size: image)
        guard image.width > 0, image.height > 0, bounds.width > 0, bounds.height > 0 else { return (full, bounds) }
        let sx = bounds.width / image.width, sy = bounds.height / image.height
        switch self {
        case .stretch:
            return (full, bounds)
        case .fit:
            let s = min(sx, sy)
            let w = image.width * s, h = image.height * s
            return (full, Rect(x: bounds.midX - w / 2, y: bounds.midY - h / 2, width: w, height: h))
        case .fill:
            let s = max(sx, sy)
            let w = bounds.width / s, h = bounds.height / s
            return (Rect(x: (image.width - w) / 2, y: (image.height - h) / 2, width: w, height: h), bounds)
        }
    }
}
