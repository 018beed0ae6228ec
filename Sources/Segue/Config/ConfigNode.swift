
/// Where a configuration value came from, for error messages.
public enum ConfigOrigin: Hashable, Sendable, CustomStringConvertible {
    /// A line of a YAML file (its name as the user gave it).
    case file(String, line: Int)
    /// A `--set KEY=VALUE` override.
    case override(String)
    /// A value Segue supplied itself.
    case builtIn
    /// Another option of the command line, as written (`--var name=Ana`).
    case option(String)

    public var description: String {
        switch self {
        case let .file(name, line): return "\(name), line \(line)"
        case let .override(text): return "--set \(text)"
        case .builtIn: return "built-in value"
        case let .option(text): return text
        }
    }
}

/// A YAML document as a tree of strings, each node knowing where it came from.
public struct ConfigNode: Hashable, Sendable {
    public enum Value: Hashable, Sendable {
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

        public func hash(into hasher: inout Hasher) {
            switch self {
            case let .scalar(text, quoted):
                hasher.combine(0)
                hasher.combine(text)
                hasher.combine(quoted)
            case let .sequence(items):
                hasher.combine(1)
                hasher.combine(items)
            case let .mapping(pairs):
                hasher.combine(2)
                hasher.combine(pairs.count)
                for pair in pairs {
                    hasher.combine(pair.key)
                    hasher.combine(pair.value)
                }
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
        return try YAMLEvents.parse(text, name: name, origin: origin)
    }

    /// The value at `key` of a mapping.
    public subscript(key: String) -> ConfigNode? {
        guard case let .mapping(pairs) = value else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// A mapping holding `value` at a dotted path (`["transition", "duration"]`).
    public init(path: [String], value: ConfigNode) {
        var node = value
        for key in path.reversed() { node = ConfigNode(.mapping([(key, node)]), origin: value.origin) }
        self = node
    }

    /// Settings from a file (a manifest's or story's `set`: dotted or nested keys) as one layer.
    static func layer(of settings: [(key: String, value: ConfigNode)]) throws -> ConfigNode {
        var layer = ConfigNode(.mapping([]), origin: .builtIn)
        for (key, value) in settings {
            let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.contains(where: \.isEmpty) else {
                throw PresetError.invalid(key: key, origin: value.origin, value: "'\(key)'", expected: "a dotted preset key, like transition.duration")
            }
            layer = ConfigNode(path: path, value: value).timingShorthand().merged(over: layer)
        }
        return layer
    }

    /// One `KEY=VALUE` override as a mapping holding the value at the key's dotted path; the
    /// value is read as YAML (`0.4`, `[1080, 1920]`).
    public init(override text: String) throws {
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
        self.init(path: path, value: node)
    }

    /// Lays one `KEY=VALUE` override over this configuration.
    public mutating func apply(override text: String) throws {
        self = try ConfigNode(override: text).layered(over: self)
    }

    /// Adds a key at the end of a mapping.
    mutating func append(_ key: String, _ node: ConfigNode) {
        guard case var .mapping(pairs) = value else { return }
        pairs.append((key, node))
        value = .mapping(pairs)
    }

    /// The keys of `transition` that every kind of transition has; the others are the kind's own.
    static let sharedTransitionKeys: Set<String> = ["kind", "duration", "curve"]

    /// This configuration laid over `base` as a preset layer (a preset over what it extends,
    /// overrides over a preset): merged key by key, except that when this layer changes
    /// `transition.kind`, the base's parameters of the old kind are dropped, since they mean
    /// nothing to the new one.
    public func layered(over base: ConfigNode) -> ConfigNode {
        var base = base
        if case let .scalar(kind, _)? = self["transition"]?["kind"]?.value,
           case let .scalar(oldKind, _)? = base["transition"]?["kind"]?.value, kind != oldKind,
           case let .mapping(pairs)? = base["transition"]?.value,
           case var .mapping(top) = base.value, let index = top.firstIndex(where: { $0.key == "transition" }) {
            top[index].value.value = .mapping(pairs.filter { ConfigNode.sharedTransitionKeys.contains($0.key) })
            base.value = .mapping(top)
        }
        return merged(over: base)
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
        // A layer Segue made (overrides, settings) says less about where the whole came from than the base.
        return ConfigNode(.mapping(pairs), origin: origin == .builtIn ? base.origin : origin)
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
