import CSegueKernels

/// gl-transitions' `swap` by gre (MIT): the two pictures swing past each other in depth,
/// over their reflections. Ported from swap.glsl.
///
/// A sum (`GLSumWarp`): each pixel is a page where one stands there (the one in front first),
/// else the black floor with the pages' reflections added on it. The pixels' math is in C
/// (`segue_swap_row`, glports.c); here, what a frame shares, each column's factors among it.
public struct GLSwap: GLSumWarp {
    public static let file = "swap", authors = "gre"
    public static let summary = "The pictures swing past each other in depth over their reflections (gl-transitions swap)."
    public static let family = TransitionFamily.displacements
    public static let reflection = Parameter.number("reflection", default: 0.4, in: 0...1, "How bright the reflections are.")
    public static let perspective = Parameter.number("perspective", default: 0.2, in: -10...10, "How far the pictures turn.")
    public static let depth = Parameter.number("depth", default: 3, in: 0.01...100, "How far back the pictures go.")
    public static let parameters = [reflection.erased, perspective.erased, depth.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public struct Frame: Sendable {
        let p, reflection: Float
        /// Each page's factor across (the same for every pixel of the frame).
        let acrossA, acrossB: Float
        /// Each column's factor of y, for the outgoing page and the incoming: a page's rows
        /// are scaled column by column (its perspective).
        let scalesA, scalesB: [Float]
        /// Every `SEGUE_AHEAD_STRIDE`-th column's u and factors, for `positionsAhead`.
        let aheadUs, aheadScalesA, aheadScalesB: [Float]
    }

    public func frame(_ f: GLUniforms) -> Frame {
        let p = f.progress, depth = values.float(Self.depth), perspective = values.float(Self.perspective)
        let sizeA = GLSL.mix(1, depth, p), perspA = perspective * p, sizeB = GLSL.mix(1, depth, 1 - p), perspB = perspective * (1 - p)
        let us = GLFrame.columns(f.width), scalesA = us.map { Self.scaleA($0, sizeA, perspA) }, scalesB = us.map { Self.scaleB($0, sizeB, perspB) }
        return Frame(p: p, reflection: values.float(Self.reflection), acrossA: sizeA / (1 - perspective * p),
                     acrossB: sizeB / (1 - perspective * (1 - p)), scalesA: scalesA, scalesB: scalesB, aheadUs: GLFrame.ahead(us),
                     aheadScalesA: GLFrame.ahead(scalesA), aheadScalesB: GLFrame.ahead(scalesB))
    }

    @inline(__always) static func scaleA(_ u: Float, _ size: Float, _ persp: Float) -> Float { size / (1 - size * persp * u) }
    @inline(__always) static func scaleB(_ u: Float, _ size: Float, _ persp: Float) -> Float { size / (1 - size * persp * (0.5 - u)) }

    /// A row's sums in C (`segue_swap_row`), from the columns' factors, with no branch a pixel.
    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width w: Float, height h: Float,
                          into: UnsafeMutablePointer<Float>) {
        Self.row(into, us.baseAddress!, k.scalesA, k.scalesB, us.count, v, k, w, h)
    }

    /// The same row kernel over the frame's every stride-th column: a pixel's sample in swap
    /// goes down the page as the pixel does, but faster where the page is drawn smaller and up
    /// in the reflections, which the kernel's own guess takes for a plain turn.
    public func positionsAhead(_ v: Float, _ k: Frame, width w: Float, height h: Float, into: UnsafeMutablePointer<Float>) -> Bool {
        Self.row(into, k.aheadUs, k.aheadScalesA, k.aheadScalesB, k.aheadUs.count, v, k, w, h)
        return true
    }

    /// `segue_swap_row` over the columns whose u and factors are given.
    private static func row(_ into: UnsafeMutablePointer<Float>, _ us: UnsafePointer<Float>, _ scalesA: UnsafePointer<Float>,
                            _ scalesB: UnsafePointer<Float>, _ count: Int, _ v: Float, _ k: Frame, _ w: Float, _ h: Float) {
        segue_swap_row(into, us, scalesA, scalesB, v, w, h, k.acrossA, k.acrossB, k.p < 0.5 ? 1 : 0, k.reflection, Int32(count))
    }
}
