/// A transition: a pure function from progress to a layer tree. It never touches pixels;
/// the compositor draws what it returns.
///
/// A video moves through a list of still *screens*, holding on each and transitioning
/// between neighbours. For most transitions the screens are the inputs' full-screen pages;
/// a transition may build others (a profile grid and detail screens, the faces of a cube).
public protocol Transition: Sendable {
    /// The still screens, in order, built from one full-screen page per input. Images in
    /// them are drawn at the size their layers have here; they are resampled once to it.
    func screens(pages: [Layer], bounds: Rect) -> [Layer]

    /// The scene of transition `step`, from screen `step` (`from`) to screen `step + 1`
    /// (`to`), at `progress` (0...1, beyond it for a curve that overshoots). At progress 0
    /// it shows exactly `from`; at 1 exactly `to`.
    func scene(step: Int, progress: Double, from: Layer, to: Layer, bounds: Rect) -> Layer

    /// Seconds of transition `step`, given the preset's `transition.duration`.
    func duration(step: Int, base: Double) -> Double

    /// The progress transition `step` is drawn at, `linear` seconds-fraction into it.
    func progress(step: Int, linear: Double, curve: TimingCurve) -> Double
}

extension Transition {
    public func screens(pages: [Layer], bounds: Rect) -> [Layer] { pages }
    public func duration(step: Int, base: Double) -> Double { base }
    public func progress(step: Int, linear: Double, curve: TimingCurve) -> Double { curve(linear) }
}

/// A transition between two neighbouring pages, the screens being the pages themselves.
public protocol PageTransition: Transition {
    /// The scene between `from` and `to`, both laid out to fill `bounds` (the canvas in points).
    func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer
}

extension PageTransition {
    public func scene(step: Int, progress: Double, from: Layer, to: Layer, bounds: Rect) -> Layer {
        scene(from: from, to: to, progress: progress, bounds: bounds)
    }
}

extension Layer {
    /// A root layer covering `bounds` with `sublayers` in it, as a window's root view.
    public static func root(_ bounds: Rect, _ sublayers: [Layer]) -> Layer {
        var root = Layer(frame: bounds)
        root.sublayers = sublayers
        return root
    }
}
