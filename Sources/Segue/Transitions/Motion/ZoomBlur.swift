import Foundation

/// Zoom blur: CapCut's "pull in". The camera pushes into the outgoing page, scaling it from 1
/// to `zoom` about `center` over the first half; the incoming page arrives at `zoom` and
/// settles to 1 over the second, the two crossfading over the middle fifth, all under a
/// motion blur (`blur`) that streaks them radially from the centre.
public struct ZoomBlur: PageTransition {
    public static let name = "zoomblur"
    public static let summary = "A zoom through a point of the screen with radial motion blur: into the last image, out of the next (CapCut's pull in)."
    public static let family = TransitionFamily.pages
    public static let source = "CapCut's pull in: a zoom in and out with radial motion blur"
    public static let zoom = Parameter.number("zoom", default: 2, in: 1...8, "How far the camera zooms in at the cut: 2 doubles the pages' size.")
    public static let center = Parameter.unitPoint("center", default: Point(x: 0.5, y: 0.5), "What the camera zooms toward, [x, y] in 0...1 of the screen from the top left.")
    public static let blur = Parameter.number("blur", default: 360, in: 0...360, "The camera's shutter angle in degrees: how long the radial streaks are (0: none).")
    public static let parameters = [zoom.erased, center.erased, blur.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public var ownMotionBlur: MotionBlur? { MotionBlur(shutter: values[Self.blur]) }

    public func scene(from: Layer, to: Layer, progress p: Double, bounds: Rect) -> Layer {
        let zoom = values[Self.zoom], center = values[Self.center]
        // Each page's scale is zoom^(2p) going in and zoom^(2(1 - p)) coming out, so the push is
        // steady in a log scale, as a camera's dolly looks; they cross over [0.4, 0.6].
        let fade = min(max((p - 0.4) / 0.2, 0), 1)
        var layers: [Layer] = []
        if fade < 1 { layers.append(CameraMoves.scaled(from, pow(zoom, 2 * min(p, 0.6)), about: center, in: bounds)) }
        if fade > 0 {
            var incoming = CameraMoves.scaled(to, pow(zoom, 2 * (1 - max(p, 0.4))), about: center, in: bounds)
            incoming.opacity = fade * fade * (3 - 2 * fade)
            layers.append(incoming)
        }
        return .root(bounds, layers)
    }
}
