/// A preset, an override or a job that cannot be used as written. Each message names the
/// place (file and line, or the `--set` that brought the value), the key, what was found and
/// what is expected.
public enum PresetError: Error, Equatable, CustomStringConvertible {
    case syntax(String, detail: String)
    case unknownKey(key: String, origin: ConfigOrigin, known: [String])
    case missingKey(key: String, origin: ConfigOrigin, expected: String)
    case wrongType(key: String, origin: ConfigOrigin, found: String, expected: String)
    case outOfRange(key: String, origin: ConfigOrigin, value: String, range: String)
    case invalid(key: String, origin: ConfigOrigin, value: String, expected: String)
    /// What a key names is of the right kind but holds a problem of its own (a cue of a
    /// subtitle file that ends before it starts), said where it is.
    case inside(key: String, origin: ConfigOrigin, problem: String)
    case badOverride(String)
    case presetNotFound(String, searched: [String], available: [String])
    case unreadable(String, reason: String)
    /// Several problems found together (a job's, a slide's), one a line.
    case several([PresetError])

    /// The problems this error holds, each alone.
    public var all: [PresetError] {
        if case let .several(errors) = self { return errors.flatMap(\.all) }
        return [self]
    }

    public var description: String {
        switch self {
        case let .syntax(name, detail):
            return "\(name): not valid YAML: \(detail)"
        case let .unknownKey(key, origin, known):
            let last = key.split(separator: ".").last.map(String.init) ?? key
            let hint = suggestion(for: last, among: known).map { " Did you mean '\($0)'?" } ?? ""
            return "\(origin): unknown key '\(key)'.\(hint) (expected one of: \(known.joined(separator: ", ")))"
        case let .missingKey(key, origin, expected):
            return "\(origin): '\(key)' is missing (expected \(expected))"
        case let .wrongType(key, origin, found, expected):
            return "\(origin): '\(key)' is \(found) (expected \(expected))"
        case let .outOfRange(key, origin, value, range):
            return "\(origin): '\(key)' is \(value), out of range (expected \(range))"
        case let .invalid(key, origin, value, expected):
            return "\(origin): '\(key)' is \(shortened(value, keeping: 200)) (expected \(expected))"
        case let .inside(key, origin, problem):
            return "\(origin): '\(key)': \(problem)"
        case let .badOverride(text):
            return "--set \(text): expected KEY=VALUE with a dotted key, for example --set transition.duration=0.4"
        case let .presetNotFound(name, searched, available):
            let list = available.isEmpty ? "none found" : available.joined(separator: ", ")
            return "no preset named '\(name)' (shipped presets: \(list); searched: \(searched.joined(separator: ", ")))"
        case let .unreadable(path, reason):
            return "\(path): cannot read it: \(reason)"
        case let .several(errors):
            return errors.map(\.description).joined(separator: "\n")
        }
    }
}

/// The closest of `candidates` to `word` by edit distance, if it is close enough to be a typo.
func suggestion(for word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, word.count / 3) ? best.0 : nil
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
