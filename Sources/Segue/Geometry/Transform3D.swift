import Foundation

/// A 4x4 transform with Core Animation's CATransform3D layout and conventions.
///
/// A point is a row vector and is transformed as `p' = p * M`, so the translation lives in
/// `m41...m43` and the perspective term in `m34`: for a bare perspective matrix,
/// `w' = 1 + z * m34`. `rotated(by:x:y:z:)` and `translated(x:y:z:)` prepend their
/// operation (it happens first, then `self`), and `concatenating(_:)` applies `self` then
/// the argument, exactly as CATransform3DRotate, CATransform3DTranslate and
/// CATransform3DConcat do.
public struct Transform3D: Equatable, Hashable, Sendable, Codable {
    public var m11: Double, m12: Double, m13: Double, m14: Double
    public var m21: Double, m22: Double, m23: Double, m24: Double
    public var m31: Double, m32: Double, m33: Double, m34: Double
    public var m41: Double, m42: Double, m43: Double, m44: Double

    public init(m11: Double, m12: Double, m13: Double, m14: Double,
                m21: Double, m22: Double, m23: Double, m24: Double,
                m31: Double, m32: Double, m33: Double, m34: Double,
                m41: Double, m42: Double, m43: Double, m44: Double) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13; self.m14 = m14
        self.m21 = m21; self.m22 = m22; self.m23 = m23; self.m24 = m24
        self.m31 = m31; self.m32 = m32; self.m33 = m33; self.m34 = m34
        self.m41 = m41; self.m42 = m42; self.m43 = m43; self.m44 = m44
    }

    /// CATransform3DIdentity.
    public static let identity = Transform3D(m11: 1, m12: 0, m13: 0, m14: 0,
                                             m21: 0, m22: 1, m23: 0, m24: 0,
                                             m31: 0, m32: 0, m33: 1, m34: 0,
                                             m41: 0, m42: 0, m43: 0, m44: 1)

    public var isIdentity: Bool { self == .identity }

    /// CATransform3DMakeTranslation.
    public init(translationX tx: Double, y ty: Double, z tz: Double = 0) {
        self = .identity
        m41 = tx; m42 = ty; m43 = tz
    }

    /// CATransform3DMakeScale.
    public init(scaleX sx: Double, y sy: Double, z sz: Double = 1) {
        self = .identity
        m11 = sx; m22 = sy; m33 = sz
    }

    /// CATransform3DMakeRotation: `angle` radians about the axis (x, y, z). A zero axis gives
    /// the identity, as Core Animation does.
    public init(rotationAngle angle: Double, x: Double, y: Double, z: Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0 else { self = .identity; return }
        let ux = x / length, uy = y / length, uz = z / length
        let c = cos(angle), s = sin(angle), t = 1 - c
        self.init(m11: t * ux * ux + c, m12: t * ux * uy + s * uz, m13: t * ux * uz - s * uy, m14: 0,
                  m21: t * ux * uy - s * uz, m22: t * uy * uy + c, m23: t * uy * uz + s * ux, m24: 0,
                  m31: t * ux * uz + s * uy, m32: t * uy * uz - s * ux, m33: t * uz * uz + c, m34: 0,
                  m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// A perspective matrix as the seeds write it: the identity with `m34` set
    /// (`transform.m34 = 1.0 / 1000`).
    public static func perspective(m34: Double) -> Transform3D {
        var t = Transform3D.identity
        t.m34 = m34
        return t
    }

    /// CATransform3DConcat(self, other): apply `self`, then `other`.
    public func concatenating(_ b: Transform3D) -> Transform3D {
        let a = self
        return Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            m34: a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    /// CATransform3DRotate(self, angle, x, y, z): rotate first, then `self`.
    public func rotated(by angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        Transform3D(rotationAngle: angle, x: x, y: y, z: z).concatenating(self)
    }

    /// CATransform3DTranslate(self, tx, ty, tz): translate first, then `self`.
    public func translated(x: Double, y: Double, z: Double = 0) -> Transform3D {
        Transform3D(translationX: x, y: y, z: z).concatenating(self)
    }

    /// CATransform3DScale(self, sx, sy, sz): scale first, then `self`.
    public func scaled(x: Double, y: Double, z: Double = 1) -> Transform3D {
        Transform3D(scaleX: x, y: y, z: z).concatenating(self)
    }

    /// The homogeneous image of the row vector (x, y, z, 1).
    public func apply(x: Double, y: Double, z: Double = 0) -> (x: Double, y: Double, z: Double, w: Double) {
        (x * m11 + y * m21 + z * m31 + m41,
         x * m12 + y * m22 + z * m32 + m42,
         x * m13 + y * m23 + z * m33 + m43,
         x * m14 + y * m24 + z * m34 + m44)
    }

    /// The point (x, y, 0) transformed and divided by w.
    public func project(_ p: Point) -> Point {
        let h = apply(x: p.x, y: p.y)
        return Point(x: h.x / h.w, y: h.y / h.w)
    }

    /// The transform with its z output dropped: what a flat (non-3D) parent does to the
    /// 3D result of its sublayers before placing them, keeping perspective already applied.
    var flattened: Transform3D {
        var t = self
        t.m13 = 0; t.m23 = 0; t.m33 = 0; t.m43 = 0
        return t
    }
}

public func * (a: Transform3D, b: Transform3D) -> Transform3D { a.concatenating(b) }
