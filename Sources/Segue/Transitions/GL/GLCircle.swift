/// gl-transitions' `circle` by Fernando Kuteken (MIT): the picture closes to a point in a
/// circle over a plain colour, and the next opens out of it. Ported from circle.glsl.
public struct GLCircle: GLSampledWarp {
    public static let file = "circle", authors = "Fernando Kuteken"
    public static let summary = "The picture closes into a circle over a colour, and the next opens out of it (gl-transitions circle)."
    public static let family = TransitionFamily.masks
    public static let center = Parameter.vector("center", default: [0.5, 0.5], in: -10...10, "The circle's centre (x, y from the bottom left, 0 to 1, as in GLSL; iris counts y from the top).")
    public static let backColor = Parameter.vector("backColor", default: [0.1, 0.1, 0.1], in: 0...1, "The colour around the circle (red, green, blue, 0 to 1).")
    public static let parameters = [center.erased, backColor.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (center: SIMD2<Float>, back: SIMD4<Float>, radius: Float, first: Bool) {
        let c = values.vector3(Self.backColor)
        return (values.vector2(Self.center), vec4(c.x, c.y, c.z, 1), Float(8).squareRoot() * abs(f.progress - 0.5), f.progress < 0.5)
    }

    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: (center: SIMD2<Float>, back: SIMD4<Float>, radius: Float, first: Bool)) -> GLSamples {
        if GLSL.distance(uv, k.center) > k.radius { return .outside }
        return GLSamples(uv, weight: k.first ? 0 : 1)
    }

    public func outside(_ k: (center: SIMD2<Float>, back: SIMD4<Float>, radius: Float, first: Bool)) -> SIMD4<Float> { k.back }

    /// Every sample is the pixel's own texel, or the colour: a row is one page's row with the
    /// colour outside the circle, nothing sampled.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), back = GLFrame.pixel(k.back)
        let us = GLFrame.columns(width), h = Float(height)
        return { y, pages, out in
            let page = k.first ? pages.a(y) : pages.b(y), dy = 1 - (Float(y) + 0.5) / h - k.center.y
            us.withUnsafeBufferPointer { us in
                for x in 0..<width {
                    let dx = us[x] - k.center.x
                    out[x] = (dx * dx + dy * dy).squareRoot() > k.radius ? back : page[x]
                }
            }
        }
    }
}
