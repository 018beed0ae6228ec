/// A rectangle in a scene, with Core Animation's CALayer geometry.
///
/// A point q of the layer's bounds is drawn at
/// `(q - bounds.origin - anchorPoint * bounds.size, 0, 1) * transform`, moved to
/// `(position, zPosition)`, then carried through each ancestor's `sublayerTransform` (about
/// that ancestor's anchor point) and placement, and divided by w at the end. A layer whose
/// `preserves3D` is false (a plain CALayer) flattens the 3D result of its sublayers into its
/// own plane; one whose `preserves3D` is true behaves as a CATransformLayer and keeps them
/// in 3D, drawn by depth.
public struct Layer: Sendable {
    /// The layer's own coordinate space; its origin shifts the sublayers (as a scroll view's
    /// contentOffset does).
    public var bounds: Rect
    /// Where the anchor point sits in the superlayer's bounds space.
    public var position: Point
    /// Added to the z of `position`.
    public var zPosition: Double = 0
    /// The point of the bounds, in unit coordinates, that `position` places and that
    /// `transform` turns about.
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var transform: Transform3D = .identity
    /// Applied to the sublayers, about this layer's anchor point (a camera, for example).
    public var sublayerTransform: Transform3D = .identity
    /// Multiplies the opacity of the layer and of its sublayers.
    public var opacity: Double = 1
    /// How the layer and its sublayers, drawn together, are laid over what is beneath.
    public var blendMode = BlendMode.normal
    /// When false, the layer is not drawn while its back faces the viewer.
    public var isDoubleSided = true
    /// Filled over the bounds, beneath the contents.
    public var backgroundColor: Color?
    /// What is drawn in the bounds according to `contentsGravity`, never outside them;
    /// resolved to pixels when a frame is composed.
    public var contents: Contents?
    public var contentsGravity: ContentsGravity = .fill
    /// Rounds the corners of the background, and of everything when `masksToBounds` is set.
    public var cornerRadius: Double = 0
    public var cornerCurve: CornerCurve = .circular
    /// Clips the contents and the sublayers to the (rounded) bounds.
    public var masksToBounds = false
    /// Shows only what lies inside this rounded rectangle, given in the layer's bounds space
    /// (the alpha of a mask layer with a background color and a corner radius, as the
    /// shared zoom's mask view is); it moves with the layer's transform.
    public var mask: RoundedRect?
    /// CATransformLayer semantics: sublayers stay in 3D and are ordered by depth.
    public var preserves3D = false
    /// Drawn after the layer, back to front by `zPosition` (then in order).
    public var sublayers: [Layer] = []
    /// A label for tests and debugging; never drawn.
    public var name: String?
    /// For a per-pixel transition: its two sublayers (the outgoing page, then the incoming)
    /// are drawn each apart, and the transition writes the layer's pixels from the two.
    public var pixelMix: PixelMix?

    public init(bounds: Rect, position: Point) {
        self.bounds = bounds
        self.position = position
    }

    /// A layer that occupies `frame` of its superlayer (with no transform), as
    /// UIView(frame:) lays out its layer.
    public init(frame: Rect, anchorPoint: Point = Point(x: 0.5, y: 0.5)) {
        self.init(bounds: Rect(size: frame.size),
                  position: Point(x: frame.minX + anchorPoint.x * frame.width, y: frame.minY + anchorPoint.y * frame.height))
        self.anchorPoint = anchorPoint
    }

    /// The anchor point in the layer's bounds space.
    public var anchorInBounds: Point {
        Point(x: bounds.minX + anchorPoint.x * bounds.width, y: bounds.minY + anchorPoint.y * bounds.height)
    }

    /// Maps the layer's bounds space into its superlayer's bounds space, before the
    /// superlayer's sublayerTransform.
    public var placement: Transform3D {
        let a = anchorInBounds
        return Transform3D(translationX: -a.x, y: -a.y)
            .concatenating(transform)
            .concatenating(Transform3D(translationX: position.x, y: position.y, z: zPosition))
    }

    /// The sublayerTransform taken about the anchor point, as applied to sublayers.
    public var sublayerPlacement: Transform3D {
        if sublayerTransform.isIdentity { return .identity }
        let a = anchorInBounds
        return Transform3D(translationX: -a.x, y: -a.y)
            .concatenating(sublayerTransform)
            .concatenating(Transform3D(translationX: a.x, y: a.y))
    }

    /// Moves the anchor point without moving the layer on screen: what the stories seed's
    /// `setAnchorPoint` does for a layer whose transform leaves the plane at z = 0 in place
    /// (the identity, or any transform applied about the anchor afterwards).
    public mutating func setAnchorPoint(_ point: Point) {
        let old = anchorInBounds
        anchorPoint = point
        let new = anchorInBounds
        position.x += new.x - old.x
        position.y += new.y - old.y
    }
}

extension Layer {
    /// The frame of an untransformed layer in its superlayer: where its bounds land.
    public var frame: Rect {
        Rect(x: position.x - anchorPoint.x * bounds.width, y: position.y - anchorPoint.y * bounds.height,
             width: bounds.width, height: bounds.height)
    }

    /// Sets the frame of an untransformed layer: its bounds size and the position that puts
    /// the anchor point where the frame says (UIView.frame's setter).
    public mutating func setFrame(_ frame: Rect) {
        bounds.size = frame.size
        position = Point(x: frame.minX + anchorPoint.x * frame.width, y: frame.minY + anchorPoint.y * frame.height)
    }
}

