/// Every transition Segue draws, in the order the preset reference lists them. The preset
/// reader, `docs/presets.md`, `segue presets` and the command line's help derive from this list.
public enum TransitionRegistry {
    public static let all: [any Transition.Type] = [
        StoriesCube.self, TelegramCube.self, Crossfade.self, Slide.self, Flip.self, Iris.self, CubeFold.self, SharedZoom.self,
    ]

    /// The names presets use, in order.
    public static var names: [String] { all.map { $0.name } }

    /// The names of the transitions that join two pages (a story's cuts), in order.
    public static var joiningTwoPages: [String] {
        // A loop, not filter and map over the metatypes: Swift 6.3's SIL generation crashes on those.
        var names: [String] = []
        for kind in all where kind.joinsTwoPages { names.append(kind.name) }
        return names
    }

    /// The transition of that name.
    public static func named(_ name: String) -> (any Transition.Type)? { all.first { $0.name == name } }
}
