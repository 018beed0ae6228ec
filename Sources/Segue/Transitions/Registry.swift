/// Every transition Segue draws. The raw values are the names presets and the command line use.
public enum TransitionKind: String, CaseIterable, Codable, Sendable {
    case storiesCube = "stories-cube"

    public static var names: [String] { allCases.map(\.rawValue) }
}

/// A transition kind with its parameters: what a preset's `transition` section chooses.
public enum TransitionChoice: Equatable, Sendable {
    case storiesCube(StoriesCube.Parameters)

    public var kind: TransitionKind {
        switch self {
        case .storiesCube: return .storiesCube
        }
    }

    /// The transition that draws this choice.
    public var transition: any Transition {
        switch self {
        case let .storiesCube(parameters): return StoriesCube(parameters)
        }
    }

    /// Reads the parameters of `kind` from a preset's `transition` section.
    static func read(_ kind: TransitionKind, from reader: inout ConfigReader) throws -> TransitionChoice {
        switch kind {
        case .storiesCube: return .storiesCube(try StoriesCube.Parameters(reading: &reader))
        }
    }
}
