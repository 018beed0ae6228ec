/// Every transition Segue draws, in the order the preset reference lists them. The preset
/// reader, `docs/presets.md`, `segue presets` and the command line's help derive from this list.
public enum TransitionRegistry {
    public static let all: [any Transition.Type] = [
        StoriesCube.self, TelegramCube.self, Crossfade.self, Slide.self, Flip.self, Iris.self, CubeFold.self, SharedZoom.self,
    ]

    /// The names presets use, in order.
    public static var names: [String] { all.map { $0.name } }

    /// The transition of that name.
    public static func named(_ name: String) -> (any Transition.Type)? { all.first { $0.name == name } }
}
