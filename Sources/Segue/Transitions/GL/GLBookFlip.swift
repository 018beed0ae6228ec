import CSegueKernels

/// gl-transitions' `BookFlip` by hong (MIT): the page turns like a book's, shaded as it
/// stands up. Ported from BookFlip.glsl.
///
/// Each pixel is one page, sampled where it stands or where the turning page puts it: a warp
/// whose weights are 0 or 1. The turning half is shaded: a run of columns, each channel but
/// alpha times the frame's shade, applied to the warp's rows. The samples are in C
/// (`segue_bookflip_row`, glwarps.c); here, what a frame shares.
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

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let warp = warpRows(progress: progress, width: width, height: height)
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height))
        // The columns the turning page covers, shaded: where the kernel takes the incoming
        // page left of the middle, or the outgoing one right of it (its weights are the same
        // in every row).
        let us = GLFrame.columns(width)
        var row = [Float](repeating: 0, count: 5 * width)
        us.withUnsafeBufferPointer { us in
            row.withUnsafeMutableBufferPointer { positions(us, 0.5, k, width: Float(width), height: Float(height), into: $0.baseAddress!) }
        }
        // The weights are the row's fifth run.
        let columns = us.indices.filter { us[$0] < 0.5 ? row[4 * width + $0] == 1 : row[4 * width + $0] == 0 }
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
