import Foundation

/// Ken Burns motion on a slide (editly's `zoomDirection` and `zoomAmount`): a slow zoom or
/// pan over the slide's whole time on screen, its incoming transition, its hold and its
/// outgoing transition.
///
/// The picture is drawn in a layer `1 + amount` times the page (its largest size), so it is
/// prepared once at the size it is drawn at its largest and stays sharp; a transform scales
/// and moves it by fractions of a pixel, continuously, so the motion has no frame-to-frame
/// jitter (FFmpeg's zoompan rounds its window to whole pixels). Drawn smaller than prepared,
/// it is filtered by each pixel's footprint (`FootprintSource`), so fine detail does not shimmer.
public struct Motion: Equatable, Hashable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        /// No motion: the page is still.
        case none
        /// Zoom in: from the whole picture to `1 + amount` times it, about `center`.
        case `in`
        /// Zoom out: the reverse.
        case out
        /// Pan: the picture, `1 + amount` times the page, moves toward the left by `amount`
        /// of the page's width (toward the right, up, down likewise).
        case left, right, up, down
    }

    public var kind: Kind = .none
    /// The zoom (0.1: 10 %), or the pan as a fraction of the width or height.
    public var amount: Double = 0.1
    /// How the motion's progress follows time.
    public var curve: TimingCurve = .linear
    /// What a zoom closes in on, in 0...1 of the picture.
    public var center = Point(x: 0.5, y: 0.5)
    /// Motion blur over the slide's hold (a transition's frames take their cut's).
    public var motionBlur = MotionBlur.off

    public init(kind: Kind = .none, amount: Double = 0.1, curve: TimingCurve = .linear, center: Point = Point(x: 0.5, y: 0.5),
                motionBlur: MotionBlur = .off) {
        self.kind = kind
        self.amount = amount
        self.curve = curve
        self.center = center
        self.motionBlur = motionBlur
    }

    public var isStill: Bool { kind == .none || amount == 0 }

    /// The transform of the picture's layer at motion progress `t` (0...1), for a layer
    /// `1 + amount` times `page` whose anchor is at the layer's center and whose position is
    /// the page's center: a scale (at most 1, reached at the zoom's end) and a translation, in
    /// the page's points.
    func transform(at t: Double, page: Size) -> Transform3D {
        let big = 1 + amount
        let m = curve(min(max(t, 0), 1))
        var scale = 1.0, dx = 0.0, dy = 0.0
        switch kind {
        case .none: return Transform3D(scaleX: 1 / big, y: 1 / big)
        case .in: scale = (1 + amount * m) / big
        case .out: scale = (1 + amount * (1 - m)) / big
        case .left: dx = amount * page.width * (0.5 - m)
        case .right: dx = amount * page.width * (m - 0.5)
        case .up: dy = amount * page.height * (0.5 - m)
        case .down: dy = amount * page.height * (m - 0.5)
        }
        if kind == .in || kind == .out {
            // Zoom about `center`: the center's point of the picture stays where it is on the page.
            let zoom = scale * big
            dx = (center.x - 0.5) * page.width * (1 - zoom)
            dy = (center.y - 0.5) * page.height * (1 - zoom)
        }
        return Transform3D(scaleX: scale, y: scale).concatenating(Transform3D(translationX: dx, y: dy))
    }
}

extension Layer {
    /// A page whose picture moves: the page keeps its bounds, background and clips to them;
    /// its picture is drawn by a sublayer `1 + amount` times its size under `motion`'s
    /// transform at progress `t`.
    func moving(_ motion: Motion, at t: Double) -> Layer {
        guard let picture = contents, !motion.isStill else { return self }
        var page = self
        page.contents = nil
        page.masksToBounds = true
        let big = 1 + motion.amount
        var image = Layer(bounds: Rect(x: 0, y: 0, width: bounds.width * big, height: bounds.height * big),
                          position: Point(x: bounds.midX, y: bounds.midY))
        image.contents = picture
        image.contentsGravity = contentsGravity
        image.transform = motion.transform(at: t, page: bounds.size)
        image.name = (name ?? "page") + " picture"
        page.sublayers.insert(image, at: 0)
        return page
    }
}

extension Motion {
    /// Reads a `motion` section: kind, amount, curve and center, each defaulting to `base`'s.
    init(reading m: inout ConfigReader, default base: Motion) throws {
        let kind = try m.choice("kind", default: base.kind.rawValue, among: Kind.allCases.map(\.rawValue),
                                "Ken Burns motion over each slide's time on screen: a zoom (in, out) or a pan (left, right, up, down).")
        self.kind = Kind(rawValue: kind)!
        amount = try m.number("amount", default: base.amount, in: 0...2, "How much: 0.1 zooms by 10 %, or pans by 10 % of the width or height.")
        curve = try m.parsed("curve", default: base.curve, expected: "one of: " + TimingCurve.names.joined(separator: ", "),
                             "Timing curve of the motion.") { TimingCurve(parsing: $0) }
        let c = try m.numbers("center", default: [base.center.x, base.center.y], in: 0...1, expected: "[x, y]",
                              "What a zoom closes in on, [x, y] in 0...1 of the picture.") { $0.count == 2 }
        center = Point(x: c[0], y: c[1])
        motionBlur = try MotionBlur.read(&m, default: base.motionBlur)
    }
}
