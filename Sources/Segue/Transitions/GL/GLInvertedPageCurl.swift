import CSegueKernels
import Foundation

/// gl-transitions' `InvertedPageCurl` by Hewlett-Packard (BSD 3-clause; adapted by Sergey
/// Kosarevsky from webvfx's page curl): the page curls up from its bottom right corner round a
/// cylinder, its back grey, casting a shadow on the next. Ported from InvertedPageCurl.glsl:
/// its pixels' math is in C (curl.c); here, what a frame shares.
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

        /// The frame's numbers as the C row takes them.
        var constants: SegueCurl {
            SegueCurl(rotation_xx: rotation.x.x, rotation_xy: rotation.x.y, rotation_yx: rotation.y.x, rotation_yy: rotation.y.y,
                      rotation_zx: rotation.z.x, rotation_zy: rotation.z.y, back_xx: back.x.x, back_xy: back.x.y, back_yx: back.y.x,
                      back_yy: back.y.y, back_zx: back.z.x, back_zy: back.z.y, amount: amount, center: cylinderCenter,
                      angle: cylinderAngle, radius: Curl.radius)
        }
    }

    /// A row at a time in C alone (`segue_page_curl_row`, curl.c): the file's shader, the band
    /// of the curl and its shadow vectorised.
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
}
