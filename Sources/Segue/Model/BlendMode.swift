import CSegueKernels

/// How a layer (an overlay, a sticker, a light leak) is laid over what lies beneath it: the
/// blend modes of W3C Compositing and Blending Level 1, on premultiplied pixels
/// (`segue_blend_row`); `add` is its `plus-lighter`.
public enum BlendMode: String, CaseIterable, Sendable, Hashable {
    case normal, screen, add, multiply, overlay
    case softLight = "soft-light"
    case lighten, darken, difference

    /// The mode's number in the C kernel.
    var kernel: Int32 {
        switch self {
        case .normal: Int32(SEGUE_BLEND_NORMAL)
        case .screen: Int32(SEGUE_BLEND_SCREEN)
        case .add: Int32(SEGUE_BLEND_ADD)
        case .multiply: Int32(SEGUE_BLEND_MULTIPLY)
        case .overlay: Int32(SEGUE_BLEND_OVERLAY)
        case .softLight: Int32(SEGUE_BLEND_SOFT_LIGHT)
        case .lighten: Int32(SEGUE_BLEND_LIGHTEN)
        case .darken: Int32(SEGUE_BLEND_DARKEN)
        case .difference: Int32(SEGUE_BLEND_DIFFERENCE)
        }
    }

    /// The names, as `blend:` takes them.
    static let names = allCases.map(\.rawValue)
}
