/// Whether two draw lists draw the same pixels: the same polygons, opacities and masks, over
/// the same paints (one color, or the same picture, an immutable `Image`, by identity, reached
/// through the same mapping). A per-pixel transition's page that draws the same as the last
/// frame's is not drawn again (`SpareBuffers.page`). Names, which only tests read, do not count.
extension DrawItem {
    static func drawSame(_ a: [DrawItem], _ b: [DrawItem]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.drawsSame(as: $1) }
    }

    func drawsSame(as other: DrawItem) -> Bool {
        corners == other.corners && opacity == other.opacity && blend == other.blend && groupCorners == other.groupCorners
            && masks.count == other.masks.count && zip(masks, other.masks).allSatisfy { $0.isSame(as: $1) }
            && paint.isSame(as: other.paint)
    }
}

extension Paint {
    func isSame(as other: Paint) -> Bool {
        switch (self, other) {
        case (.solid(let p), .solid(let q)):
            return p == q
        case (.image(let i, let s, let m), .image(let j, let t, let n)):
            return i === j && s == t && m == n
        case (.group(let a), .group(let b)):
            return DrawItem.drawSame(a, b)
        default:
            // A per-pixel transition inside a page changes each frame.
            return false
        }
    }
}

extension ShapeMask {
    func isSame(as other: ShapeMask) -> Bool {
        shape == other.shape && toLocal == other.toLocal && pixelSize == other.pixelSize
    }
}
