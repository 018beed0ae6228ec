/// gl-transitions' `windowblinds` by Fabien Benetou (MIT): bands of ever more, ever thinner
/// blinds fade at two paces. Ported from windowblinds.glsl.
public struct GLWindowBlinds: GLTransition {
    public static let file = "windowblinds", authors = "Fabien Benetou"
    public static let summary = "Ever thinner horizontal blinds fade at two paces (gl-transitions windowblinds)."
    public static let family = TransitionFamily.masks
    public static let parameters: [AnyParameter] = []

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public func shader(_ f: GLFrame) -> GLShader {
        let p = f.progress, settle = GLSL.smoothstep(0.8, 1, p)
        return { uv in
            let t = GLSL.mod((uv.y * 100 * p).rounded(.down), 2) == 0 ? p * (2 - 0.5) : p
            return GLSL.mix(f.from(uv), f.to(uv), GLSL.mix(t, p, settle))
        }
    }
}
