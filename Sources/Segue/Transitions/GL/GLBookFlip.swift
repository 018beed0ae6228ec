import CSegueKernels

/// gl-transitions' `BookFlip` by hong (MIT): the page turns like a book's, shaded as it
/// stands up. Ported from BookFlip.glsl.
///
/// Each pixel is one page, sampled where it stands or where the turning page puts it: a warp
/// whose weights are 0 or 1. The turning half is shaded: a run of columns, each channel but
/// alpha times the frame's shade, applied to the warp's rows.
public struct GLBookFlip: GLKernelWarp {
    public static let file = "BookFlip", authors = "hong"
    public static let summary = "The page turns from the right like a book's (gl-transitions BookFlip)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func frame(_ f: GLUniforms) -> (p: Float, shade: Float) { (f.progress, max(0.7, abs(f.progress - 0.5) * 2)) }

    public static let row: GLWarpRowKernel = segue_bookflip_row
    public func constants(_ k: (p: Float, shade: Float)) -> SIMD8<Float> { .constants(k.p) }

    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: (p: Float, shade: Float)) -> GLSamples {
        let p = k.p, turned = GLSL.step(1 - p, uv.x)
        if uv.x < 0.5 {
            let left = vec2((uv.x - 0.5) / (p - 0.5) * 0.5 + 0.5, (uv.y - 0.5) / (0.5 + (1 - p) * (0.5 - uv.x) / 0.5) * 0.5 + 0.5)
            return GLSamples(from: uv, to: left, weight: turned)
        }
        let right = vec2((uv.x - p) / (0.5 - p) * 0.5, (uv.y - 0.5) / (0.5 + p * (uv.x - 0.5) / 0.5) * 0.5 + 0.5)
        return GLSamples(from: right, to: uv, weight: turned)
    }

    /// Whether the column at `u` shows the turning page (shaded).
    @inline(__always) func shaded(_ u: Float, _ k: (p: Float, shade: Float)) -> Bool {
        let turned = GLSL.step(1 - k.p, u) == 1
        return u < 0.5 ? turned : !turned
    }

    public func shader(_ f: GLFrame) -> GLShader {
        let k = frame(GLUniforms(f)), me = self, shade = vec4(k.shade, k.shade, k.shade, 1)
        return { uv in
            let s = me.samples(uv, k), a = uv.x < 0.5 ? f.from(s.from) : f.from(s.from) * shade
            let b = uv.x < 0.5 ? f.to(s.to) * shade : f.to(s.to)
            return GLSL.mix(a, b, s.weight)
        }
    }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let warp = warpRows(progress: progress, width: width, height: height)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height))
        let columns = GLFrame.columns(width).enumerated().filter { shaded($0.element, k) }.map(\.offset)
        let shade = vec4(k.shade, k.shade, k.shade, 1)
        guard let first = columns.first, let last = columns.last, let map = GLAffine.map({ a, _ in a * shade }) else { return warp }
        return { y, pages, out in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: width) { row in
                let row = row.baseAddress!
                warp(y, pages, row)
                out.update(from: row, count: width)
                GLAffine.mix(map, row + first, row + first, into: out + first, count: last + 1 - first)
            }
        }
    }
}
