/// gl-transitions' `wind` by gre (MIT): a ragged soft front blows across, each row a little
/// ahead or behind at random. Ported from wind.glsl (its random numbers the shader's sine hash).
public struct GLWind: GLMask {
    public static let file = "wind", authors = "gre"
    public static let summary = "A ragged front blown across the screen (gl-transitions wind)."
    public static let family = TransitionFamily.masks
    public static let size = Parameter.number("size", default: 0.2, in: 0...1, "How ragged and soft the front is.")
    public static let reversed = Parameter.flag("reversed", default: false, "Blow from the right instead of the left.")
    public static let parameters = [size.erased, reversed.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (size: Float, reversed: Bool, progress: Float) {
        (values.float(Self.size), values[Self.reversed], f.progress)
    }

    @inline(__always) public func weight(_ uv: SIMD2<Float>, _ k: (size: Float, reversed: Bool, progress: Float)) -> Float {
        weight(uv.x, GLSL.rand(vec2(0, uv.y)), k)
    }

    /// The weight at `u` across a row whose random number is `r`.
    @inline(__always) func weight(_ u: Float, _ r: Float, _ k: (size: Float, reversed: Bool, progress: Float)) -> Float {
        let x = k.reversed ? 1 - u : u
        return GLSL.smoothstep(0, -k.size, x * (1 - k.size) + k.size * r - k.progress * (1 + k.size))
    }

    /// A row's random number is the same across it: drawn once a row, not once a pixel.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, us = GLFrame.columns(width), h = Float(height)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height))
        return { y, pages, out in
            let r = GLSL.rand(vec2(0, 1 - (Float(y) + 0.5) / h))
            us.withUnsafeBufferPointer { us in pages.mix(y, into: out) { x in me.weight(us[x], r, k) } }
        }
    }
}
