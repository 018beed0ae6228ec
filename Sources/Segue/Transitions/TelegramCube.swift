import Foundation

/// Telegram-style cube (seed 003): pages in a paging collection view; each visible cell
/// turns by percent x maxAngle about the edge on the side it is leaving by (anchor (1, 0.5)
/// when percent > 0, else (0, 0.5)), seen with m34 = 1 / perspective, and fades by
/// alpha = 1 - clamp(-percent, 0, 1), where percent is the cell's distance from the
/// center of the screen in screen widths.
public struct TelegramCube: Transition {
    public enum Direction: String, Codable, CaseIterable, Sendable {
        /// Each next page enters from the right (the collection scrolls forward).
        case forward
        /// Each next page enters from the left (the collection scrolls backward).
        case backward
    }

    public struct Parameters: Codable, Equatable, Sendable {
        /// The angle in degrees a page has turned by when a whole page width away; the seed's
        /// maxAngle. Default 60; range 0...90.
        public var maxAngle: Double = 60
        /// The eye's distance in points; the seed's m34 = 1 / 500. Default 500; range 100...100000.
        public var perspective: Double = 500
        /// Which side each next page enters from. Default forward.
        public var direction: Direction = .forward
        /// Whether the video opens by turning the first page in from an empty screen (the
        /// canvas background) instead of starting on it. Default false.
        public var enterFirst = false

        public init(maxAngle: Double = 60, perspective: Double = 500, direction: Direction = .forward, enterFirst: Bool = false) {
            self.maxAngle = maxAngle
            self.perspective = perspective
            self.direction = direction
            self.enterFirst = enterFirst
        }

        init(reading r: inout ConfigReader) throws {
            maxAngle = try r.number("maxAngle", default: 60, in: 0...90, "Degrees a page has turned a whole page width from the center.")
            perspective = try r.number("perspective", default: 500, in: 100...100_000, "Distance of the eye in points; m34 = 1 / perspective.")
            direction = Direction(rawValue: try r.choice("direction", default: "forward", among: Direction.allCases.map(\.rawValue),
                                                         "forward: next pages enter from the right; backward: from the left."))!
            enterFirst = try r.flag("enterFirst", default: false, "Open by turning the first page in from an empty screen.")
        }
    }

    public var parameters: Parameters

    public init(_ parameters: Parameters = Parameters()) { self.parameters = parameters }

    public func screens(pages: [Layer], bounds: Rect) -> [Layer] {
        guard parameters.enterFirst, var empty = pages.first else { return pages }
        empty.contents = nil
        empty.name = "empty"
        return [empty] + pages
    }

    public func scene(step: Int, progress: Double, from: Layer, to: Layer, bounds: Rect) -> Layer {
        let width = bounds.width
        let forward = parameters.direction == .forward
        // The collection view: `to` is the next cell (forward) or the previous one (backward),
        // and the content offset moves toward it by progress x width.
        let xOffset = (forward ? 1 : -1) * progress * width
        var cells = [from, to]
        cells[0].setFrame(bounds)
        cells[1].setFrame(bounds.offsetBy(dx: forward ? width : -width, dy: 0))
        let visibleRect = bounds.offsetBy(dx: xOffset, dy: 0)
        let svCenter = visibleRect.midX

        var visible: [Layer] = []
        for var cell in cells where cell.frame.intersects(visibleRect) {
            let percent = (svCenter - cell.frame.midX) / width
            cell.transform = TelegramCube.transform(percent, maxAngle: parameters.maxAngle, perspective: parameters.perspective)
            cell.setAnchorPoint(percent > 0 ? Point(x: 1, y: 0.5) : Point(x: 0, y: 0.5))
            cell.opacity = 1 - min(max(-percent, 0), 1)
            visible.append(cell)
        }
        var collection = Layer(frame: bounds)
        collection.bounds.origin = Point(x: xOffset, y: 0)
        collection.sublayers = visible.sorted { $0.frame.minX < $1.frame.minX }
        collection.name = "collectionView"
        return .root(bounds, [collection])
    }

    /// The seed's applyTransform: m34 = 1 / perspective, then a turn of percent x maxAngle about y.
    static func transform(_ percent: Double, maxAngle: Double, perspective: Double) -> Transform3D {
        let rad = percent * maxAngle * Double.pi / 180
        return Transform3D.perspective(m34: 1 / perspective).rotated(by: rad, x: 0, y: 1, z: 0)
    }
}
