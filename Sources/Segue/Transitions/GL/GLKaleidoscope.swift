import CSegueKernels
import Foundation

/// gl-transitions' `kaleidoscope` by nwoeanhinnogaehr (MIT): the pictures fold into a turning
/// kaleidoscope and out of it. Ported from kaleidoscope.glsl.
///
/// Each pixel is a cross-fade of the pages where it stands, mixed with their cross-fade at the
/// folded point: the folded one is a warp (both pages sampled at one point, mixed by the
/// progress), the plain one a constant mix, and the two are mixed by how far the folding has
/// gone, the same for every pixel.
public struct GLKaleidoscope: GLWarp {
    public static let file = "kaleidoscope", authors = "nwoeanhinnogaehr"
    public static let summary = "The pictures fold into a turning kaleidoscope and out (gl-transitions kaleidoscope)."
    public static let family = TransitionFamily.displacements
    public static let speed = Parameter.number("speed", default: 1, in: -100...100, "How fast the mirrors turn.")
    public static let angle = Parameter.number("angle", default: 1, in: -100...100, "How far each fold turns from the last.")
    public static let power = Parameter.number("power", default: 1.5, in: 0...100, "How the turning speeds up.")
    public static let parameters = [speed.erased, angle.erased, power.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// The pages mixed once a frame: both pages are read at each point, plain and folded, mixed by the progress.
    public func premix(progress: Double) -> Float? { Float(progress) }

    public struct Frame: Sendable {
        let progress: Float
        /// How far the picture is folded: 0 at either end, 1 halfway.
        let folded: Float
        /// The seven folds' turns, the same for every pixel: their sines and cosines.
        let sines, cosines: SIMD8<Float>
    }

    public func frame(_ f: GLUniforms) -> Frame {
        let p = f.progress, angle = values.float(Self.angle)
        var t = powf(p, values.float(Self.power)) * values.float(Self.speed), sines = SIMD8<Float>(), cosines = SIMD8<Float>()
        for i in 0..<7 {
            (sines[i], cosines[i]) = (sinf(t), cosf(t))
            t += angle
        }
        return Frame(progress: p, folded: 1 - 2 * abs(p - 0.5), sines: sines, cosines: cosines)
    }

    /// The folded point, in C alone (`segue_kaleidoscope_row`, glports.c): seven folds a pixel
    /// are more than Swift's four-wide vectors keep up with. Both pages are sampled there,
    /// mixed by the progress.
    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width: Float, height: Float,
                          into: UnsafeMutablePointer<Float>) {
        withUnsafeBytes(of: k.sines) { sines in
            withUnsafeBytes(of: k.cosines) { cosines in
                segue_kaleidoscope_row(into, us.baseAddress!, v, width, height, k.progress, sines.baseAddress!.assumingMemoryBound(to: Float.self),
                                       cosines.baseAddress!.assumingMemoryBound(to: Float.self), Int32(us.count))
            }
        }
    }

    /// The plain cross-fade and the folded one, mixed.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let warp = warpRows(progress: progress, width: width, height: height)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height))
        let folded = UInt32(PagePictures.fixed(k.folded))
        return { y, pages, out in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * width) { rows in
                let turned = rows.baseAddress! + width
                warp(y, pages, turned)
                segue_mix_constant(out, pages.mixed(y, constant: k.progress, scratch: rows.baseAddress!), turned, folded, Int32(width))
            }
        }
    }
}
