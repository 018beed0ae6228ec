/// A transition between two full-screen pages: a pure function from progress to a layer
/// tree. It never touches pixels; the compositor draws what it returns.
public protocol Transition: Sendable {
    /// The scene at eased `progress` in 0...1 between `from` and `to`, both laid out to fill
    /// `bounds` (the canvas in points). At progress 0 it shows exactly `from`; at 1 exactly `to`.
    func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer
}

extension Layer {
    /// A root layer covering `bounds` with `sublayers` in it, as a window's root view.
    public static func root(_ bounds: Rect, _ sublayers: [Layer]) -> Layer {
        var root = Layer(frame: bounds)
        root.sublayers = sublayers
        return root
    }
}
