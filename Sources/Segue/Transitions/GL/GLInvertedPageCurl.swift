import CSegueKernels
import Foundation

/// gl-transitions' `InvertedPageCurl` by Hewlett-Packard (BSD 3-clause; adapted by Sergey
/// Kosarevsky from webvfx's page curl): the page curls up from its bottom right corner round a
/// cylinder, its back grey, casting a shadow on the next. Ported from InvertedPageCurl.glsl.
public struct GLInvertedPageCurl: GLTransition {
    public static let file = "InvertedPageCurl", authors = "Hewlett-Packard, Sergey Kosarevsky"
    public static let license = "BSD 3-clause"
    public static let summary = "The page curls away from a corner round a cylinder (gl-transitions InvertedPageCurl)."
    public static let family = TransitionFamily.displacements
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    /// A 3 x 3 matrix by its columns, as GLSL's mat3 is written.
    struct Matrix {
        let x: vec3, y: vec3, z: vec3
        @inline(__always) func callAsFunction(_ v: vec3) -> vec3 { x * v.x + y * v.y + z * v.z }
    }

    /// What a frame's pixels share: how far the page has curled, the cylinder, and the turns
    /// into its frame and back.
    struct Curl {
        static let radius = 1 / GLSL.pi / 2
        let amount, cylinderCenter, cylinderAngle: Float
        let rotation, back: Matrix

        init(progress: Float) {
            let pi = GLSL.pi, angle = 100 * pi / 180
            amount = progress * (1.5 - -0.16) + -0.16
            cylinderCenter = amount
            cylinderAngle = 2 * pi * amount
            rotation = Matrix(x: vec3(cosf(-angle), sinf(-angle), 0), y: vec3(-sinf(-angle), cosf(-angle), 0), z: vec3(-0.801, 0.89, 1))
            back = Matrix(x: vec3(cosf(angle), sinf(angle), 0), y: vec3(-sinf(angle), cosf(angle), 0), z: vec3(0.985, 0.985, 1))
        }

        /// How far the pixel at uv lies from the cylinder's axis, across it (GL's `yc`): the
        /// turned point's y, worked out alone.
        @inline(__always) func height(_ u: Float, _ v: Float) -> Float { rotation.x.y * u + rotation.y.y * v + rotation.z.y * 1 - cylinderCenter }

        /// The frame's numbers as the C row takes them.
        var constants: SegueCurl {
            SegueCurl(rotation_xx: rotation.x.x, rotation_xy: rotation.x.y, rotation_yx: rotation.y.x, rotation_yy: rotation.y.y,
                      rotation_zx: rotation.z.x, rotation_zy: rotation.z.y, back_xx: back.x.x, back_xy: back.x.y, back_yx: back.y.x,
                      back_yy: back.y.y, back_zx: back.z.x, back_zy: back.z.y, amount: amount, center: cylinderCenter,
                      angle: cylinderAngle, radius: Curl.radius)
        }
    }

    public func shader(_ f: GLFrame) -> GLShader {
        let pi = GLSL.pi, radius = Curl.radius, scale: Float = 512, sharpness: Float = 3, curl = Curl(progress: f.progress)
        let amount = curl.amount, cylinderCenter = curl.cylinderCenter, cylinderAngle = curl.cylinderAngle
        let rotation = curl.rotation, back = curl.back

        func hit(_ angle: Float, _ point: vec3) -> vec3 { back(vec3(point.x, angle / (2 * pi), point.z)) }
        func outside(_ q: vec3) -> Bool { q.x < 0 || q.y < 0 || q.x > 1 || q.y > 1 }
        func antiAlias(_ a: vec4, _ b: vec4, _ distance: Float) -> vec4 {
            let d = distance * scale
            if d < 0 { return b }
            if d > 2 { return a }
            return (b - a) * GLSL.pow(1 - d / 2, sharpness) + a
        }
        func toEdge(_ q: vec3) -> Float {
            var dx = abs(q.x > 0.5 ? 1 - q.x : q.x), dy = abs(q.y > 0.5 ? 1 - q.y : q.y)
            if q.x < 0 { dx = -q.x }
            if q.x > 1 { dx = q.x - 1 }
            if q.y < 0 { dy = -q.y }
            if q.y > 1 { dy = q.y - 1 }
            if (q.x < 0 || q.x > 1) && (q.y < 0 || q.y > 1) { return (dx * dx + dy * dy).squareRoot() }
            return min(dx, dy)
        }
        func seeThrough(_ yc: Float, _ p: vec2) -> vec4 {
            let angle = pi - (GLSL.acos(GLSL.clamp(yc / radius, -1, 1)) - cylinderAngle)
            let q = hit(angle, rotation(vec3(p.x, p.y, 1)))
            if yc <= 0 && outside(q) { return f.to(p) }
            if yc > 0 { return f.from(p) }
            return antiAlias(f.from(vec2(q.x, q.y)), .zero, toEdge(q))
        }
        func seeThroughWithShadow(_ yc: Float, _ p: vec2, _ q: vec3) -> vec4 {
            var shadow = (1 - toEdge(q) * 30) / 3
            shadow = shadow < 0 ? 0 : shadow * amount
            return seeThrough(yc, p) - vec4(shadow, shadow, shadow, 0)
        }
        func shade(_ q: vec3, _ yc: Float) -> Float {
            let dx = q.x - 0.5, dy = q.y - 0.5, n = -yc / radius
            return (1 - (dx * dx + dy * dy).squareRoot() / 0.71) * n * n * n * 0.5
        }
        func behind(_ p: vec2, _ yc: Float, _ point: vec3) -> vec4 {
            let yc = -radius - radius - yc
            let angle = (GLSL.acos(GLSL.clamp(yc / radius, -1, 1)) + cylinderAngle) - pi
            let q = hit(angle, point)
            let shadow = yc < 0 && !outside(q) && (angle < pi || amount > 0.5) ? shade(q, yc) : 0
            let to = f.to(p)
            return vec4(to.x - shadow, to.y - shadow, to.z - shadow, 1)
        }
        return { p in
            let point = rotation(vec3(p.x, p.y, 1)), yc = point.y - cylinderCenter
            if yc < -radius { return behind(p, yc, point) }
            if yc > radius { return f.from(p) }
            let angle = (GLSL.acos(GLSL.clamp(yc / radius, -1, 1)) + cylinderAngle) - pi
            let turned = GLSL.mod(angle, 2 * pi)
            if (turned > pi && amount < 0.5) || (turned > pi / 2 && amount < 0) { return seeThrough(yc, p) }
            let q = hit(angle, point)
            if outside(q) { return seeThroughWithShadow(yc, p, q) }
            var color = f.from(vec2(q.x, q.y))
            let gray = (color.x + color.z + color.y) / 15 + 0.8 * (GLSL.pow(max(0, 1 - abs(yc / radius)), 0.2) / 2 + 0.5)
            color = vec4(gray, gray, gray, color.w)
            let other = yc < 0 ? vec4(0, 0, 0, shade(q, yc)) : f.from(p)
            color = antiAlias(color, other, radius - abs(yc))
            return antiAlias(color, seeThroughWithShadow(yc, p, q), toEdge(q))
        }
    }

    /// A row at a time in C (`segue_page_curl_row`, curl.c): the shader above written again
    /// operation for operation, the band of the curl and its shadow vectorised.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let curl = Curl(progress: Float(progress)).constants, us = GLFrame.columns(width)
        return { y, pages, out in
            withUnsafePointer(to: curl) { curl in
                us.withUnsafeBufferPointer { us in
                    segue_page_curl_row(out, pages.a, pages.b, Int32(width), Int32(height), Int32(y), us.baseAddress!, curl)
                }
            }
        }
    }

    /// The same rows from the shader in Swift, pixel by pixel: what the C row is checked
    /// against. Away from the cylinder each pixel is a page's texel where it stands (the
    /// outgoing page ahead of the curl; the next one behind it, opaque, beyond the curl's
    /// shadow), as the shader gives them.
    func shaderRows(progress: Double, width: Int, height: Int) -> PixelRows {
        let me = self, p = Float(progress), ratio = Float(width) / Float(height), us = GLFrame.columns(width)
        let curl = Curl(progress: p), radius = Curl.radius
        return { y, pages, out in
            let shader = me.shader(GLFrame(pages: pages, progress: p, ratio: ratio))
            let v = 1 - (Float(y) + 0.5) / Float(height), a = pages.a(y), b = pages.b(y)
            us.withUnsafeBufferPointer { us in
                for x in 0..<width {
                    let yc = curl.height(us[x], v)
                    if yc > radius {
                        out[x] = a[x]
                    } else if yc < -radius && -radius - radius - yc >= 0 {
                        out[x] = b[x] | 0xFF00_0000
                    } else {
                        out[x] = GLFrame.pixel(shader(vec2(us[x], v)))
                    }
                }
            }
        }
    }
}
