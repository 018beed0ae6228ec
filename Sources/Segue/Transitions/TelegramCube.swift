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

    public static let name = "telegram-cube"
    public static let summary = "Each page turns about the edge it leaves by and the one on the right fades: forward the next page fades in, backward the current one fades out; optionally opening on the first page (seed 003, a Telegram-style cube)."
    public static let family = TransitionFamily.pages
    public static let source = "seed 003, a Telegram-style cube"
    /// The seed's maxAngle.
    public static let maxAngle = Parameter.number("maxAngle", default: 60, in: 0...90, "Degrees a page has turned a whole page width from the center.")
    /// The seed's m34 = 1 / 500.
    public static let perspective = Parameter.number("perspective", default: 500, in: 100...100_000, "Distance of the eye in points; m34 = 1 / perspective.")
    public static let direction = Parameter.choice("direction", default: Direction.forward, "forward: next pages enter from the right; backward: from the left.")
    public static let enterFirst = Parameter.flag("enterFirst", default: false, "Open by turning the first page in from an empty screen.")
    public static let parameters = [maxAngle.erased, perspective.erased, direction.erased, enterFirst.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// With enterFirst, the video opens on an empty screen (the canvas background) and the
    /// first page turns in over it: one screen more than there are pages.
    public func screenCount(pages: Int) -> Int { pages + (values[Self.enterFirst] ? 1 : 0) }

    /// The empty screen an opening turn starts from is not held: the video opens turning.
    public func hold(screen index: Int, base: Double) -> Double { values[Self.enterFirst] && index == 0 ? 0 : base }

    public func screen(_ index: Int, pages: [Layer], bounds: Rect) -> Layer {
        guard values[Self.enterFirst] else { return pages[index] }
        if index > 0 { return pages[index - 1] }
        var empty = pages[0]
        empty.contents = nil
        empty.name = "empty"
        return empty
    }

    public func scene(step: Int, progress: Double, pages: [Layer], bounds: Rect) -> Layer {
        scene(from: screen(step, pages: pages, bounds: bounds), to: screen(step + 1, pages: pages, bounds: bounds), progress: progress, bounds: bounds)
    }

    /// One cut of a story: the next page turns in (enterFirst is for a whole video only).
    public func cut(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        scene(from: from, to: to, progress: progress, bounds: bounds)
    }

    func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        let width = bounds.width
        let forward = values[Self.direction] == .forward
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
            cell.transform = TelegramCube.transform(percent, maxAngle: values[Self.maxAngle], perspective: values[Self.perspective])
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
