import Foundation

/// Shake: a camera shake over the cut. Both pages are held a little larger than the screen
/// (so no edge shows) and moved by smooth seeded noise, `strength` of the screen at most,
/// `shakes` times over the transition, strongest mid-way (sin π p), where the incoming page
/// fades in over a fifth of it; under motion blur (`blur`). The same `seed`, the same shake.
public struct Shake: PageTransition {
    public static let name = "shake"
    public static let summary = "A camera shake over the cut, seeded, with motion blur; the next image fades in at its height."
    public static let family = TransitionFamily.pages
    public static let source = "A camera shake: smooth seeded noise moving the pages, as editors' shake presets look"
    public static let strength = Parameter.number("strength", default: 0.04, in: 0...0.25, "How far the camera moves at most, as a share of the screen's size.")
    public static let shakes = Parameter.number("shakes", default: 6, in: 1...64, "How many jolts over the transition.")
    public static let seed = Parameter.integer("seed", default: 1, in: 0...Int(Int32.max), "Which shake: the same seed, the same moves.")
    public static let blur = Parameter.number("blur", default: 180, in: 0...360, "The camera's shutter angle in degrees (0: no blur).")
    public static let parameters = [strength.erased, shakes.erased, seed.erased, blur.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public var ownMotionBlur: MotionBlur? { MotionBlur(shutter: values[Self.blur]) }

    public func scene(from: Layer, to: Layer, progress p: Double, bounds: Rect) -> Layer {
        let p = min(max(p, 0), 1), strength = values[Self.strength], seed = values[Self.seed]
        let amount = strength * sin(Double.pi * p), t = p * values[Self.shakes]
        let dx = amount * bounds.width * CameraMoves.noise(t, seed: seed, channel: 0)
        let dy = amount * bounds.height * CameraMoves.noise(t, seed: seed, channel: 1)
        // Larger by twice the farthest move, so the screen stays covered.
        let scale = 1 + 2 * amount, middle = Point(x: 0.5, y: 0.5)
        let fade = min(max((p - 0.4) / 0.2, 0), 1)
        var layers: [Layer] = []
        if fade < 1 { layers.append(CameraMoves.scaled(from, scale, about: middle, in: bounds, dx: dx, dy: dy)) }
        if fade > 0 {
            var incoming = CameraMoves.scaled(to, scale, about: middle, in: bounds, dx: dx, dy: dy)
            incoming.opacity = fade
            layers.append(incoming)
        }
        return .root(bounds, layers)
    }
}
