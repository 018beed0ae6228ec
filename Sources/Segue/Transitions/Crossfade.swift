/// Crossfade: the incoming page fades in over the outgoing one, out = from (1 - p) + to p,
/// as FFmpeg's xfade `fade` does.
public struct Crossfade: PageTransition {
    public struct Parameters: Codable, Equatable, Sendable {
        public init() {}
        init(reading r: inout ConfigReader) throws {}
    }

    public var parameters: Parameters

    public init(_ parameters: Parameters = Parameters()) { self.parameters = parameters }

    public func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        if progress <= 0 { return .root(bounds, [from]) }
        var to = to
        to.opacity = min(progress, 1)
        return .root(bounds, [from, to])
    }
}
