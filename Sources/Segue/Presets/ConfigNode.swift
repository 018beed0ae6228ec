import Yams

/// Where a configuration value came from, for error messages.
public enum ConfigOrigin: Equatable, Sendable, CustomStringConvertible {
    /// A line of a YAML file (its name as the user gave it).
    case file(String, line: Int)
    /// A `--set KEY=VALUE` override.
    case override(String)
    /// A value Segue supplied itself.
    case builtIn

    public var description: String {
        switch self {
        case let .file(name, line): return "\(name), line \(line)"
        case let .override(text): return "--set \(text)"
        case .builtIn: return "built-in value"
        }
    }
}

/// A YAML document as a tree of strings, each node knowing where it came from.
public struct ConfigNode: Equatable, Sendable {
    public enum Value: Equatable, Sendable {
        /// A scalar's text; `quoted` when the YAML quoted it (so it is a string, never a number).
        case scalar(String, quoted: Bool)
        case sequence([ConfigNode])
        /// Keys in file order.
        case mapping([(key: String, value: ConfigNode)])

        public static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case let (.scalar(x, p), .scalar(y, q)): return x == y && p == q
            case let (.sequence(x), .sequence(y)): return x == y
            case let (.mapping(x), .mapping(y)):
                return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: return false
            }
        }
    }

    public var value: Value
    public var origin: ConfigOrigin

    public init(_ value: Value, origin: ConfigOrigin) {
        self.value = value
        self.origin = origin
    }

    /// Parses YAML text. `name` is how errors refer to the source (a file name, say).
    public static func parse(yaml text: String, name: String, originFor: ((Int) -> ConfigOrigin)? = nil) throws -> ConfigNode {
        let origin = originFor ?? { .file(name, line: $0) }
        // Anchors and aliases are refused before parsing: an alias bomb would otherwise
        // expand without bound. Presets and manifests have no use for them.
        if let line = ConfigNode.lineWithAlias(text) {
            throw PresetError.invalid(key: "(YAML)", origin: origin(line), value: "an anchor or alias (& or *)",
                                      expected: "plain values; write each value out")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw PresetError.syntax(name, detail: ConfigNode.describe(error))
        }
        guard let node else { return ConfigNode(.mapping([]), origin: origin(1)) }
        return try ConfigNode(node, origin: origin, name: name)
    }

    private init(_ node: Node, origin: (Int) -> ConfigOrigin, name: String) throws {
        let here = origin(node.mark?.line ?? 1)
        switch node {
        case let .scalar(scalar):
            self.init(.scalar(scalar.string, quoted: scalar.style == .singleQuoted || scalar.style == .doubleQuoted), origin: here)
        case let .sequence(sequence):
            self.init(.sequence(try sequence.map { try ConfigNode($0, origin: origin, name: name) }), origin: here)
        case let .mapping(mapping):
            var pairs: [(key: String, value: ConfigNode)] = []
            for (key, value) in mapping {
                guard case let .scalar(k) = key else {
                    throw PresetError.invalid(key: "(a key)", origin: origin(key.mark?.line ?? 1), value: "a complex key", expected: "a plain name")
                }
                if pairs.contains(where: { $0.key == k.string }) {
                    throw PresetError.invalid(key: k.string, origin: origin(key.mark?.line ?? 1), value: "a second '\(k.string)'", expected: "each key once")
                }
                pairs.append((k.string, try ConfigNode(value, origin: origin, name: name)))
            }
            self.init(.mapping(pairs), origin: here)
        case .alias:
            throw PresetError.invalid(key: "(an alias)", origin: here, value: "a YAML alias", expected: "plain values (aliases are not supported)")
        }
    }

    /// The first line holding a YAML anchor (`&name`) or alias (`*name`) outside quotes and
    /// comments, if any.
    static func lineWithAlias(_ text: String) -> Int? {
        var line = 1, quote: Character? = nil, comment = false, previous: Character = "\n"
        for c in text {
            if c == "\n" { line += 1; comment = false; previous = c; continue }
            if comment { previous = c; continue }
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                if " \t[{,:-\n".contains(previous) { quote = c }
            } else if c == "#" && " \t\n".contains(previous) {
                comment = true
            } else if (c == "&" || c == "*") && " \t[{,:-\n".contains(previous) {
                return line
            }
            previous = c
        }
        return nil
    }

    private static func describe(_ error: YamlError) -> String {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            let where_ = "line \(mark.line), column \(mark.column)"
            if let context { return "\(where_): \(problem) (\(context.text))" }
            return "\(where_): \(problem)"
        default:
            return "\(error)"
        }
    }

    /// The value at `key` of a mapping.
    public subscript(key: String) -> ConfigNode? {
        guard case let .mapping(pairs) = value else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// Sets the node at a dotted path (`transition.duration`), creating mappings on the way.
    /// Fails when the path runs through something that is not a mapping.
    public mutating func set(path: [String], to node: ConfigNode, fullKey: String) throws {
        guard let head = path.first else { self = node; return }
        guard case var .mapping(pairs) = value else {
            throw PresetError.invalid(key: fullKey, origin: node.origin, value: "a key under a value that is not a mapping",
                                      expected: "a dotted path through mappings")
        }
        if let i = pairs.firstIndex(where: { $0.key == head }) {
            try pairs[i].value.set(path: Array(path.dropFirst()), to: node, fullKey: fullKey)
        } else {
            var child = ConfigNode(.mapping([]), origin: node.origin)
            try child.set(path: Array(path.dropFirst()), to: node, fullKey: fullKey)
            pairs.append((head, child))
        }
        value = .mapping(pairs)
    }

    /// Applies one `KEY=VALUE` override; the value is read as YAML (`0.4`, `[1080, 1920]`).
    public mutating func apply(override text: String) throws {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw PresetError.badOverride(text)
        }
        let key = String(text[..<eq]).trimmingCharacters(in: .whitespaces)
        let raw = String(text[text.index(after: eq)...])
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.contains(where: \.isEmpty) else { throw PresetError.badOverride(text) }
        // The value is YAML (a number, a list, a quoted text), except that a bare text which
        // YAML would read as nothing (empty, or a '#' color read as a comment) is that text.
        var node = try ConfigNode.parse(yaml: raw, name: "--set \(text)", originFor: { _ in .override(text) })
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") {
            node = ConfigNode(.scalar(trimmed, quoted: true), origin: .override(text))
        }
        try set(path: path, to: node, fullKey: key)
    }

    /// Removes a key from a mapping.
    public mutating func remove(_ key: String) {
        guard case let .mapping(pairs) = value else { return }
        value = .mapping(pairs.filter { $0.key != key })
    }

    /// This node laid over `base`: mappings merge key by key (this one's values winning, its
    /// new keys after the base's); anything else replaces the base.
    public func merged(over base: ConfigNode) -> ConfigNode {
        guard case let .mapping(mine) = value, case let .mapping(theirs) = base.value else { return self }
        var pairs = theirs.map { pair -> (key: String, value: ConfigNode) in
            guard let over = mine.first(where: { $0.key == pair.key }) else { return pair }
            return (pair.key, over.value.merged(over: pair.value))
        }
        pairs += mine.filter { pair in !theirs.contains { $0.key == pair.key } }
        return ConfigNode(.mapping(pairs), origin: origin)
    }

    /// A scalar or a list of scalars as one line of YAML.
    var inlineYAML: String {
        switch value {
        case let .scalar(text, quoted): return quoted ? ConfigNode.quoted(text) : ConfigNode.quotedIfNeeded(text)
        case let .sequence(items): return "[" + items.map(\.inlineYAML).joined(separator: ", ") + "]"
        case let .mapping(pairs): return "{" + pairs.map { "\($0.key): \($0.value.inlineYAML)" }.joined(separator: ", ") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Plain when YAML reads it back as the same text (or it is already a flow list), else double-quoted.
    static func quotedIfNeeded(_ text: String) -> String {
        if (text.hasPrefix("[") && text.hasSuffix("]")) || Double(text) != nil { return text }
        let safe = !text.isEmpty && text.first != " " && text.last != " " && text.first != "-"
            && text.allSatisfy { $0.isLetter || $0.isNumber || "._-+(), ".contains($0) }
        return safe ? text : quoted(text)
    }
}
