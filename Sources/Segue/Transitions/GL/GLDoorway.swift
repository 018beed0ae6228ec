import CSegueKernels

/// gl-transitions' `doorway` by gre (MIT): the outgoing picture opens as two doors onto the
/// next, which comes forward over its reflection. Ported from doorway.glsl.
///
/// A sum (`GLSumWarp`): each pixel is a door, else the next picture, else the black floor with
/// the next picture's reflection added on it. The pixels' math is in C (`segue_doorway_row`,
/// glports.c); here, what a frame shares, each column's door among it.
public struct GLDoorway: GLSumWarp {
    public static let file = "doorway", authors = "gre"
    public static let summary = "Two doors open onto the next picture, which comes forward over its reflection (gl-transitions doorway)."
    public static let family = TransitionFamily.displacements
    public static let reflection = Parameter.number("reflection", default: 0.4, in: 0...1, "How bright the reflection under the picture is.")
    public static let perspective = Parameter.number("perspective", default: 0.4, in: -10...10, "How far the doors turn away.")
    public static let depth = Parameter.number("depth", default: 3, in: 0.01...100, "How far back the next picture starts.")
    public static let parameters = [reflection.erased, perspective.erased, depth.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public struct Frame: Sendable {
        let p, reflection, size: Float
        /// Each column's door: where it samples the outgoing page across (-1 where the doors
        /// have opened past it) and the factor its rows are scaled by (its perspective).
        let doorsX, doorsY: [Float]
    }

    public func frame(_ f: GLUniforms) -> Frame {
        let p = f.progress, perspective = values.float(Self.perspective)
        let doors = GLFrame.columns(f.width).map { Self.door($0, p, perspective) }
        return Frame(p: p, reflection: values.float(Self.reflection), size: GLSL.mix(1, values.float(Self.depth), 1 - p),
                     doorsX: doors.map(\.x), doorsY: doors.map(\.d))
    }

    /// Column u's door: where across it samples the outgoing page (-1 where the doors have
    /// opened past it), and the factor its rows are scaled by.
    @inline(__always) static func door(_ u: Float, _ p: Float, _ perspective: Float) -> (x: Float, d: Float) {
        let slit = 2 * abs(u - 0.5) - p
        guard slit > 0 else { return (-1, 0) }
        return (u + (u > 0.5 ? -1 : 1) * (0.5 * p), 1 / (1 + perspective * p * (1 - slit)))
    }

    /// A row's sums in C (`segue_doorway_row`), from the columns' doors, with no branch a pixel.
    public func positions(_ us: UnsafeBufferPointer<Float>, _ v: Float, _ k: Frame, width w: Float, height h: Float,
                          into: UnsafeMutablePointer<Float>) {
        segue_doorway_row(into, us.baseAddress!, k.doorsX, k.doorsY, v, w, h, k.size, k.reflection, Int32(us.count))
    }
}
