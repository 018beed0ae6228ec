import CSegueKernels
import Foundation

/// gl-transitions' `Dreamy` by mikolalysenko (MIT): the pictures cross-fade, each rippling up
/// and down in waves. Ported from Dreamy.glsl.
public struct GLDreamy: GLWarp {
    public static let file = "Dreamy", authors = "mikolalysenko"
    public static let summary = "A wavy dissolve, as in a dream sequence (gl-transitions Dreamy)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public struct Frame: Sendable {
        let progress: Float
        /// Each column's offset upward, the outgoing page's then the incoming page's: a
        /// column's offset is the same in every row, so its cosine is worked out once a frame.
        let offsets: [Float]
    }

    public func frame(_ f: GLUniforms) -> Frame {
        let p = f.progress, us = GLFrame.columns(f.width)
        return Frame(progress: p, offsets: us.map { Self.offset(p, $0) } + us.map { Self.offset(1 - p, $0) })
    }

    @inline(__always) static func offset(_ progress: Float, _ x: Float) -> Float { 0.03 * progress * GLSL.cos(10 * (progress + x)) }

    /// A row's positions in C (`segue_dreamy_row`): each pixel's texel moved up or down by its
    /// column's offset.
    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width: Float, height: Float,
                          into: UnsafeMutablePointer<Float>) {
        precondition(k.offsets.count == 2 * us.count, "Dreamy's frame is for \(k.offsets.count / 2) columns, not \(us.count)")
        segue_dreamy_row(into, us.baseAddress!, k.offsets, v, width, height, k.progress, Int32(us.count))
    }
}
