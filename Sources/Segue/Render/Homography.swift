/// A 3x3 projective map for row vectors: `[x y 1] * H = [X Y W]`, then divide by W.
struct Homography: Equatable {
    var m11, m12, m13: Double
    var m21, m22, m23: Double
    var m31, m32, m33: Double

    /// The z = 0 plane of a Transform3D: rows 1, 2, 4 and columns 1, 2, 4.
    init(_ t: Transform3D) {
        m11 = t.m11; m12 = t.m12; m13 = t.m14
        m21 = t.m21; m22 = t.m22; m23 = t.m24
        m31 = t.m41; m32 = t.m42; m33 = t.m44
    }

    init(m11: Double, m12: Double, m13: Double, m21: Double, m22: Double, m23: Double,
         m31: Double, m32: Double, m33: Double) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }

    /// Maps `from` onto `to`, axis by axis (scale and translation only).
    init(mapping from: Rect, to: Rect) {
        let kx = to.width / from.width, ky = to.height / from.height
        self.init(m11: kx, m12: 0, m13: 0, m21: 0, m22: ky, m23: 0,
                  m31: to.minX - from.minX * kx, m32: to.minY - from.minY * ky, m33: 1)
    }

    /// Apply `self`, then `b`.
    func concatenating(_ b: Homography) -> Homography {
        let a = self
        return Homography(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33)
    }

    var inverse: Homography? {
        let c11 = m22 * m33 - m23 * m32, c12 = m13 * m32 - m12 * m33, c13 = m12 * m23 - m13 * m22
        let det = m11 * c11 + m21 * c12 + m31 * c13
        guard det != 0, det.isFinite else { return nil }
        let k = 1 / det
        return Homography(
            m11: c11 * k, m12: c12 * k, m13: c13 * k,
            m21: (m23 * m31 - m21 * m33) * k, m22: (m11 * m33 - m13 * m31) * k, m23: (m13 * m21 - m11 * m23) * k,
            m31: (m21 * m32 - m22 * m31) * k, m32: (m12 * m31 - m11 * m32) * k, m33: (m11 * m22 - m12 * m21) * k)
    }

    func apply(_ p: Point) -> (x: Double, y: Double, w: Double) {
        (p.x * m11 + p.y * m21 + m31, p.x * m12 + p.y * m22 + m32, p.x * m13 + p.y * m23 + m33)
    }
}
