/// Every transition Segue draws. The raw values are the names presets and the command line use.
public enum TransitionKind: String, CaseIterable, Codable, Sendable {
    case storiesCube = "stories-cube"
    case telegramCube = "telegram-cube"
    case crossfade
    case slide
    case cubeFold = "cube-fold"
    case sharedZoom = "shared-zoom"

    public static var names: [String] { allCases.map(\.rawValue) }
}

/// A transition kind with its parameters: what a preset's `transition` section chooses.
public enum TransitionChoice: Equatable, Sendable {
    case storiesCube(StoriesCube.Parameters)
    case telegramCube(TelegramCube.Parameters)
    case crossfade(Crossfade.Parameters)
    case slide(Slide.Parameters)
    case cubeFold(CubeFold.Parameters)
    case sharedZoom(SharedZoom.Parameters)

    public var kind: TransitionKind {
        switch self {
        case .storiesCube: return .storiesCube
        case .telegramCube: return .telegramCube
        case .crossfade: return .crossfade
        case .slide: return .slide
        case .cubeFold: return .cubeFold
        case .sharedZoom: return .sharedZoom
        }
    }

    /// The transition that draws this choice.
    public var transition: any Transition {
        switch self {
        case let .storiesCube(parameters): return StoriesCube(parameters)
        case let .telegramCube(parameters): return TelegramCube(parameters)
        case let .crossfade(parameters): return Crossfade(parameters)
        case let .slide(parameters): return Slide(parameters)
        case let .cubeFold(parameters): return CubeFold(parameters)
        case let .sharedZoom(parameters): return SharedZoom(parameters)
        }
    }

    /// Reads the parameters of `kind` from a preset's `transition` section.
    static func read(_ kind: TransitionKind, from reader: inout ConfigReader) throws -> TransitionChoice {
        switch kind {
        case .storiesCube: return .storiesCube(try StoriesCube.Parameters(reading: &reader))
        case .telegramCube: return .telegramCube(try TelegramCube.Parameters(reading: &reader))
        case .crossfade: return .crossfade(try Crossfade.Parameters(reading: &reader))
        case .slide: return .slide(try Slide.Parameters(reading: &reader))
        case .cubeFold: return .cubeFold(try CubeFold.Parameters(reading: &reader))
        case .sharedZoom: return .sharedZoom(try SharedZoom.Parameters(reading: &reader))
        }
    }
}
