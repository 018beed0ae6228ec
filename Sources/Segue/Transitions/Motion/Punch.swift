/// Punch: a hard cut with a punch-in and a flash, as Remotion's pushCut looks. The outgoing
/// page scales up from 1 to `scale` about the centre, faster and faster; at mid-way the
/// incoming one replaces it at `scale` and settles to 1, slower and slower; a white flash
/// peaks at the cut (`flash` at the middle, gone a fifth of the way either side).
public struct Punch: PageTransition {
    public static let name = "punch"
    public static let summary = "A hard cut with a punch-in scale and a white flash (as Remotion's pushCut looks)."
    public static let family = TransitionFamily.pages
    public static let source = "Remotion pushCut's look: a punch-in, a cut and a flash"
    public static let scale = Parameter.number("scale", default: 1.15, in: 1...3, "How much larger the pages are at the cut: 1.15 is 15 %.")
    public static let flash = Parameter.number("flash", default: 0.8, in: 0...1, "The flash's opacity at the cut (0: none).")
    public static let parameters = [scale.erased, flash.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func scene(from: Layer, to: Layer, progress p: Double, bounds: Rect) -> Layer {
        let grown = values[Self.scale] - 1, middle = Point(x: 0.5, y: 0.5)
        let page = p < 0.5
            ? CameraMoves.scaled(from, 1 + grown * (2 * max(p, 0)) * (2 * max(p, 0)), about: middle, in: bounds)
            : CameraMoves.scaled(to, 1 + grown * (2 - 2 * min(p, 1)) * (2 - 2 * min(p, 1)), about: middle, in: bounds)
        var layers = [page]
        if let light = CameraMoves.flash(bounds, opacity: values[Self.flash] * max(0, 1 - abs(p - 0.5) / 0.2)) { layers.append(light) }
        return .root(bounds, layers)
    }
}
