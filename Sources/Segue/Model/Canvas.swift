import Foundation

/// The canvas a scene is drawn on: a size in pixels, the points-to-pixels scale and the
/// color beneath everything.
public struct Canvas: Equatable, Sendable {
    /// The most pixels a canvas has: the largest picture H.264 and HEVC take (level 6.2:
    /// 139,264 macroblocks of 16x16), 8192x4320 or 16384x2048.
    public static let maxPixels = 139_264 * 256
    public var width: Int
    public var height: Int
    /// Pixels per point.
    public var scale: Double
    public var background: Color

    /// Margins of the screen that text keeps out of, in 0...1 of the canvas.
    public var safeArea = EdgeInsets()

    public init(width: Int, height: Int, scale: Double, background: Color = .black) {
        self.width = width
        self.height = height
        self.scale = scale
        self.background = background
    }

    /// The canvas in points, the space scenes are laid out in.
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width) / scale, height: Double(height) / scale) }
}

extension Canvas {
    /// Whether what no layer covers stays see-through (`background: transparent`): only the
    /// outputs with alpha take it.
    public var isTransparent: Bool { background.alpha < 1 }
}
