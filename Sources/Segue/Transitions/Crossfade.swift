/// Crossfade: the incoming page fades in over the outgoing one, out = from (1 - p) + to p,
/// as FFmpeg's xfade `fade` does.
public struct Crossfade: PageTransition {
    public static let name = "crossfade"
    public static let summary = "The next image fades in over the last (FFmpeg xfade fade)."
    public static let family = TransitionFamily.pages
    public static let source = "FFmpeg xfade fade"
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [from]) }
        var to = to
        to.opacity = min(progress, 1)
        return .root(bounds, [from, to])
    }
}
