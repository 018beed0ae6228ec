import Foundation

/// gl-transitions' `DreamyZoom` by Zeh Fernando (MIT): the picture turns and zooms into a
/// white flash, out of which the next turns and settles. Ported from DreamyZoom.glsl (its
/// degrees-to-radians constant as the file writes it, π/80).
public struct GLDreamyZoom: GLTransition {
    public static let file = "DreamyZoom", authors = "Zeh Fernando"
    public static let summary = "A turning zoom into a flash and out of it (gl-transitions DreamyZoom)."
    public static let family = TransitionFamily.displacements
    public static let rotation = Parameter.number("rotation", default: 6, in: -360...360, "How far the pictures turn, in the file's degrees.")
    public static let scale = Parameter.number("scale", default: 1.2, in: 0.01...100, "How far the pictures zoom.")
    public static let parameters = [rotation.erased, scale.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let degree: Float = 0.03926990816987241548078304229099
        let rotation = values.float(Self.rotation), scale = values.float(Self.scale)
        let p = f.progress, ratio = f.ratio, first = p < 0.5
        let phase = first ? p * 2 : (p - 0.5) * 2
        let turn = first ? GLSL.mix(0, rotation * degree, phase) : GLSL.mix(-rotation * degree, 0, phase)
        let zoom = first ? GLSL.mix(1, scale, phase) : GLSL.mix(scale, 1, phase)
        let light = first ? GLSL.mix(0, 1, phase) : GLSL.mix(1, 0, phase)
        return { uv in
            let q = (uv - 0.5) / zoom * vec2(ratio, 1)
            let angle = atan2f(q.y, q.x) + turn, dist = GLSL.length(q)
            let s = vec2(cosf(angle) * dist / ratio + 0.5, sinf(angle) * dist + 0.5)
            return (first ? f.from(s) : f.to(s)) + light
        }
    }
}
