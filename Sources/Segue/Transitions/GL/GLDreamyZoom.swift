import Foundation

/// gl-transitions' `DreamyZoom` by Zeh Fernando (MIT): the picture turns and zooms into a
/// white flash, out of which the next turns and settles. Ported from DreamyZoom.glsl (its
/// degrees-to-radians constant as the file writes it, π/80).
///
/// The file turns each point by taking its angle (`atan`), adding the turn and going back
/// (`cos`, `sin`); that is the point rotated by the turn, worked out here as a rotation, the
/// same for every pixel of a frame. The flash is a constant added to every channel.
public struct GLDreamyZoom: GLSampledWarp {
    public static let file = "DreamyZoom", authors = "Zeh Fernando"
    public static let summary = "A turning zoom into a flash and out of it (gl-transitions DreamyZoom)."
    public static let family = TransitionFamily.displacements
    public static let rotation = Parameter.number("rotation", default: 6, in: -360...360, "How far the pictures turn, in the file's degrees.")
    public static let scale = Parameter.number("scale", default: 1.2, in: 0.01...100, "How far the pictures zoom.")
    public static let parameters = [rotation.erased, scale.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public struct Frame: Sendable {
        let incoming: Bool
        let zoom, ratio, cos, sin, light: Float
    }

    public func frame(_ f: GLUniforms) -> Frame {
        let degree: Float = 0.03926990816987241548078304229099
        let rotation = values.float(Self.rotation), scale = values.float(Self.scale)
        let p = f.progress, first = p < 0.5
        let phase = first ? p * 2 : (p - 0.5) * 2
        let turn = first ? GLSL.mix(0, rotation * degree, phase) : GLSL.mix(-rotation * degree, 0, phase)
        let zoom = first ? GLSL.mix(1, scale, phase) : GLSL.mix(scale, 1, phase)
        let light = first ? GLSL.mix(0, 1, phase) : GLSL.mix(1, 0, phase)
        return Frame(incoming: !first, zoom: zoom, ratio: f.ratio, cos: cosf(turn), sin: sinf(turn), light: light)
    }

    @inline(__always) public func samples(_ uv: SIMD2<Float>, _ k: Frame) -> GLSamples {
        let q = (uv - 0.5) / k.zoom * vec2(k.ratio, 1)
        let s = vec2((k.cos * q.x - k.sin * q.y) / k.ratio + 0.5, k.sin * q.x + k.cos * q.y + 0.5)
        return GLSamples(s, weight: k.incoming ? 1 : 0)
    }

    /// The warp's rows, then the flash added (each channel clamped).
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let warp = warpRows(progress: progress, width: width, height: height)
        let light = frame(GLUniforms(progress: Float(progress), width: width, height: height)).light
        guard light > 0 else { return warp }
        let sum = LinearMix(a: 1, b: 0, color: .white, c: light)
        return { y, pages, out in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: width) { row in
                warp(y, pages, row.baseAddress!)
                sum.write(out, row.baseAddress!, row.baseAddress!, count: width)
            }
        }
    }
}
