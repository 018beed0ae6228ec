import Foundation

/// Whip: a whip pan. The pages slide edge to edge, as `slide` moves them, under a fast
/// camera's motion blur (`blur`, a shutter angle, over its frames unless the cut sets
/// `motionBlur`) and an exposure that peaks mid-way, as Remotion's blurSlide looks: a white
/// layer over the frame at `exposure` × sin(π p).
public struct Whip: PageTransition {
    public static let name = "whip"
    public static let summary = "A whip pan: the images slide edge to edge under a fast camera's motion blur, the exposure peaking mid-way (as Remotion's blurSlide looks)."
    public static let family = TransitionFamily.pages
    public static let source = "Remotion blurSlide's look: a slide, motion blur and an exposure peak"
    public static let direction = Parameter.choice("direction", default: Direction.left, "Where the pages move: left, right, up or down.")
    public static let blur = Parameter.number("blur", default: 360, in: 0...360, "The camera's shutter angle in degrees: how long the streaks are (0: none).")
    public static let exposure = Parameter.number("exposure", default: 0.25, in: 0...1, "How much lighter the frame turns mid-way (0: not at all, 1: white).")
    public static let parameters = [direction.erased, blur.erased, exposure.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public var ownMotionBlur: MotionBlur? { MotionBlur(shutter: values[Self.blur]) }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        var root = Slide().with(Slide.direction, values[Self.direction]).scene(from: from, to: to, progress: progress, bounds: bounds)
        if let light = CameraMoves.flash(bounds, opacity: values[Self.exposure] * sin(Double.pi * min(max(progress, 0), 1))) {
            root.sublayers.append(light)
        }
        return root
    }
}
