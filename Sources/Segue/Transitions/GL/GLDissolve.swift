import CSegueKernels
import Foundation

/// gl-transitions' `dissolve` by hjm1fb (MIT): the picture burns away, its darkest parts first,
/// a hot rim at the burning edge. Ported from dissolve.glsl. (Its noise functions are never
/// called by the shader and are left out.)
public struct GLDissolve: GLTransition {
    public static let file = "dissolve", authors = "hjm1fb"
    public static let summary = "The picture burns away from its darkest parts, with a hot rim (gl-transitions dissolve)."
    public static let family = TransitionFamily.mixes
    public static let lineWidth = Parameter.number("uLineWidth", default: 0.1, in: 0...1, "How wide the burning rim is.")
    public static let spread = Parameter.vector("uSpreadClr", default: [1, 0, 0], in: 0...1, "The rim's outer colour (red, green, blue, 0 to 1).")
    public static let hot = Parameter.vector("uHotClr", default: [0.9, 0.9, 0.2], in: 0...1, "The rim's hottest colour (red, green, blue, 0 to 1).")
    public static let power = Parameter.number("uPow", default: 5, in: 0...100, "The power the rim's colour is raised to.")
    public static let intensity = Parameter.number("uIntensity", default: 1, in: 0...100, "How bright the rim is.")
    public static let parameters = [lineWidth.erased, spread.erased, hot.erased, power.erased, intensity.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public struct Frame: Sendable {
        let width: Float, spread: vec3, hot: vec3, power: Float, intensity: Float, p: Float, started: Float
    }

    func frame(_ progress: Float) -> Frame {
        Frame(width: values.float(Self.lineWidth), spread: values.vector3(Self.spread), hot: values.vector3(Self.hot),
              power: values.float(Self.power), intensity: values.float(Self.intensity), p: progress, started: GLSL.step(0.0001, progress))
    }

    /// The rim's hot colour at `factor`, before the pixel's alpha: pow(mix(spread, hot, f), power) × intensity.
    @inline(__always) func heat(_ factor: Float, _ k: Frame) -> vec3 {
        let c = GLSL.mix(k.spread, k.hot, factor)
        return vec3(powf(c.x, k.power), powf(c.y, k.power), powf(c.z, k.power)) * k.intensity
    }

    /// The outgoing pixel burning at `factor`, the rim's hot colour there `heat` (before the
    /// pixel's alpha).
    @inline(__always) func burnt(_ from: vec4, _ factor: Float, _ heat: vec3, _ k: Frame) -> vec4 {
        let rgb = GLSL.mix(vec3(from.x, from.y, from.z), heat * from.w, factor * k.started)
        return vec4(rgb.x, rgb.y, rgb.z, from.w)
    }

    /// The rim's hot colour (`heat`) at 4097 steps of f from 0 to 1, made once a frame: read
    /// between two steps, it is within 1e-4 of the power's for any power to 100 (a few
    /// millionths at the default 5), a tenth of a level at most.
    static let heatSteps = 4096

    func heats(_ k: Frame) -> [vec3] { (0...Self.heatSteps).map { heat(Float($0) / Float(Self.heatSteps), k) } }

    /// Only the rim is worked out in numbers: a pixel burnt through is the incoming page's and
    /// one the rim has not reached the outgoing page's, as they are (a texel made numbers and
    /// back is the same texel). The C kernel sorts a row's pixels so, and gives how far each is
    /// from burning (`segue_dissolve_row`). The rim's hot colour is read off a table made once
    /// a frame, not raised to its power three times a pixel.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, k = frame(Float(progress)), heats = heats(k), steps = Float(Self.heatSteps)
        return { y, pages, out in
            let a = pages.a(y), b = pages.b(y)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width) { rim in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { shows in
                    segue_dissolve_row(out, a, b, k.p, k.width, rim.baseAddress!, shows.baseAddress!, Int32(width))
                    let marks = UnsafeRawPointer(rim.baseAddress!)
                    heats.withUnsafeBufferPointer { heats in
                        var x = 0
                        while x < width {
                            // Eight pixels off the rim at once: most of a row is.
                            if x + 8 <= width && marks.loadUnaligned(fromByteOffset: x, as: UInt64.self) == 0 { x += 8; continue }
                            if rim[x] != 0 {
                                // How hot the rim is there.
                                let factor = 1 - GLSL.smoothstep(0, k.width, shows[x])
                                let t = GLSL.clamp(factor, 0, 1) * steps, i = min(Int(t), Self.heatSteps - 1)
                                out[x] = GLFrame.pixel(me.burnt(GLFrame.color(a[x]), factor, heats[i] + (heats[i + 1] - heats[i]) * (t - Float(i)), k))
                            }
                            x += 1
                        }
                    }
                }
            }
        }
    }
}
