/// gl-transitions' `windowslice` by gre (MIT): slats, each opening from its left, the wave of
/// openings sweeping across. Ported from windowslice.glsl.
public struct GLWindowSlice: GLMask {
    public static let file = "windowslice", authors = "gre"
    public static let summary = "Vertical slats open one after another across the screen (gl-transitions windowslice)."
    public static let family = TransitionFamily.masks
    public static let count = Parameter.number("count", default: 10, in: 1...1000, "How many slats.")
    public static let smoothness = Parameter.number("smoothness", default: 0.5, in: 0...10, "How far behind each other the slats open.")
    public static let parameters = [count.erased, smoothness.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (count: Float, smoothness: Float, progress: Float) {
        (values.float(Self.count), values.float(Self.smoothness), f.progress)
    }

    @inline(__always) public func weight(_ p: SIMD2<Float>, _ k: (count: Float, smoothness: Float, progress: Float)) -> Float {
        let pr = GLSL.smoothstep(-k.smoothness, 0, p.x - k.progress * (1 + k.smoothness))
        return GLSL.step(pr, GLSL.fract(k.count * p.x))
    }
}
