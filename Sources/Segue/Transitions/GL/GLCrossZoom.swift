import CSegueKernels
import Foundation

/// gl-transitions' `CrossZoom` by rectalogic (MIT; after glfx.js's zoom blur): a zoom blur
/// toward a centre that travels across the screen while the pictures cross-fade. Ported from
/// CrossZoom.glsl: 41 samples along each pixel's line to the centre, started at a pseudo-random
/// offset (the shader's sine hash).
public struct GLCrossZoom: GLTransition {
    public static let file = "CrossZoom", authors = "rectalogic"
    public static let summary = "A zoom blur that crosses the screen as the pictures fade (gl-transitions CrossZoom)."
    public static let family = TransitionFamily.displacements
    public static let strength = Parameter.number("strength", default: 0.4, in: 0...10, "How long the blur streaks are at the middle.")
    public static let parameters = [strength.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The pages mixed once a frame: both pages are read at each of the blur's points, mixed by the cross-fade's weight.
    public func premix(progress: Double) -> Float? { frame(Float(progress)).dissolve }

    /// What every pixel of a frame shares: the blur's centre, the cross-fade's weight and the
    /// blur's strength.
    func frame(_ p: Float) -> (center: vec2, dissolve: Float, strength: Float) {
        let dissolve: Float
        if p == 0 { dissolve = 0 } else if p == 1 { dissolve = 1 } else {
            let t = p / 0.5
            dissolve = t < 1 ? 0.5 * powf(2, 10 * (t - 1)) : 0.5 * (-powf(2, -10 * (t - 1)) + 2)
        }
        return (vec2(0.25 + 0.5 * p, 0.5), dissolve, -values.float(Self.strength) / 2 * (cosf(GLSL.pi * p / 0.5) - 1))
    }

    /// A row at a time in C (`segue_crosszoom_row`): each of the 41 samples a vectorised loop
    /// over the row's pixels, the pages mixed in 256ths at each; the random offsets are the
    /// shader's, worked out here.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let (center, dissolve, strength) = frame(Float(progress)), us = GLFrame.columns(width), k = UInt32(PagePictures.fixed(dissolve))
        return { y, pages, out in
            let v = 1 - (Float(y) + 0.5) / Float(height)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 6 * width) { buffer in
                let offsets = buffer.baseAddress!
                us.withUnsafeBufferPointer { us in
                    for x in 0..<width { offsets[x] = GLSL.rand(vec2(us[x], v)) }
                    segue_crosszoom_row(out, pages.a, pages.b, Int32(width), Int32(height), us.baseAddress!, v, offsets, center.x, center.y,
                                        strength, k, offsets + width, Int32(width))
                }
            }
        }
    }
}
