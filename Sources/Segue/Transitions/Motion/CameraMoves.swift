import Foundation

/// What the camera-move transitions (whip, zoomblur, punch, shake) share: a flash of light
/// over the frame, a page scaled about a point, and smooth seeded noise.
enum CameraMoves {
    /// A white layer over `bounds` at `opacity`: an exposure peak or a flash, laid over the
    /// pages source-over, as a camera's overexposed frames look.
    static func flash(_ bounds: Rect, opacity: Double) -> Layer? {
        guard opacity > 0 else { return nil }
        var light = Layer(frame: bounds)
        light.backgroundColor = .white
        light.opacity = min(opacity, 1)
        light.name = "flash"
        return light
    }

    /// `page` scaled by `scale` about `center` (0...1 of `bounds`), translated by (dx, dy) points.
    static func scaled(_ page: Layer, _ scale: Double, about center: Point, in bounds: Rect, dx: Double = 0, dy: Double = 0) -> Layer {
        var page = page
        page.setFrame(bounds)
        page.setAnchorPoint(center)
        page.transform = Transform3D(scaleX: scale, y: scale).concatenating(Transform3D(translationX: dx, y: dy))
        return page
    }

    /// Smooth noise in -1...1 at `t` (in cells), the same on every machine: values at whole
    /// cells from `seed` and `channel`, joined by smoothstep (value noise).
    static func noise(_ t: Double, seed: Int, channel: UInt64) -> Double {
        let cell = t.rounded(.down), f = t - cell
        func value(_ k: Double) -> Double {
            2 * Seeded.unit(UInt64(bitPattern: Int64(k)) &* 4 &+ channel, UInt64(seed)) - 1
        }
        let s = f * f * (3 - 2 * f)
        return value(cell) * (1 - s) + value(cell + 1) * s
    }
}
