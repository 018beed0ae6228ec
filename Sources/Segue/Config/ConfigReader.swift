/// Reads typed, validated values out of one mapping of a configuration, and reports any
/// key it was not asked for. Each read names its key, default, accepted range and meaning,
/// so the reads themselves are the schema.
public struct ConfigReader {
    /// One key as a read declares it: the preset reference is made of these.
    public struct Field: Equatable, Sendable {
        public var key: String
        public var type: String
        public var defaultValue: String
        public var range: String
        public var meaning: String
        /// The value in effect, as YAML: the one read, or the default.
        public var value: String
    }

    /// Collects the fields that reads declare, across nested sections.
    public final class Schema {
        public private(set) var fields: [Field] = []
        public init() {}
        func add(_ field: Field) { if !fields.contains(field) { fields.append(field) } }
    }

    let node: ConfigNode
    /// The dotted path of this mapping ("" at the top, "transition", ...).
    let path: String
    private(set) var asked: [String] = []
    /// When set, every read also records its field here.
    var schema: Schema?

    public init(_ node: ConfigNode, path: String = "") throws {
        guard case .mapping = node.value else {
            throw PresetError.wrongType(key: path.isEmpty ? "(document)" : path, origin: node.origin,
                                        found: ConfigReader.kind(of: node), expected: "a mapping of keys to values")
        }
        self.node = node
        self.path = path
    }

    func fullKey(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Records the key in the schema (its value as YAML; an empty text as `""`, as a given one prints) and
    /// returns its node, if given.
    /// The descriptions and meanings are made only when a schema is recorded (reading a preset for a batch's
    /// every row asks for none).
    private mutating func lookup(_ key: String, _ type: @autoclosure () -> String, _ defaultValue: @autoclosure () -> String,
                                 _ range: @autoclosure () -> String, _ meaning: @autoclosure () -> String) -> ConfigNode? {
        asked.append(key)
        let found = node[key]
        if let schema {
            let value = defaultValue()
            schema.add(Field(key: fullKey(key), type: type(), defaultValue: value, range: range(), meaning: meaning(),
                             value: found?.inlineYAML ?? (value == "''" ? "\"\"" : ConfigNode.quotedIfNeeded(value))))
        }
        return found
    }

    /// A number in `range`.
    public mutating func number(_ key: String, default value: Double, in range: ClosedRange<Double>, _ meaning: @autoclosure () -> String) throws -> Double {
        guard let found = lookup(key, "number", format(value), "\(format(range.lowerBound))...\(format(range.upperBound))", meaning()) else { return value }
        let number = try ConfigReader.number(found, key: fullKey(key))
        guard range.contains(number) else {
            throw PresetError.outOfRange(key: fullKey(key), origin: found.origin, value: format(number),
                                         range: "\(format(range.lowerBound))...\(format(range.upperBound))")
        }
        return number
    }

    /// A whole number in `range`.
    public mutating func integer(_ key: String, default value: Int, in range: ClosedRange<Int>, _ meaning: @autoclosure () -> String) throws -> Int {
        guard let found = lookup(key, "integer", "\(value)", "\(range.lowerBound)...\(range.upperBound)", meaning()) else { return value }
        return try ConfigReader.integer(found, key: fullKey(key), in: range)
    }

    /// One of `choices` (in any case when `ignoringCase`, returned as `choices` spells it).
    public mutating func choice(_ key: String, default value: String?, among choices: [String], ignoringCase: Bool = false,
                                _ meaning: @autoclosure () -> String) throws -> String {
        let found = lookup(key, "text", value ?? "(required)", choices.joined(separator: " \\| "), meaning())
        guard let found else {
            if let value { return value }
            throw PresetError.missingKey(key: fullKey(key), origin: node.origin, expected: "one of: \(choices.joined(separator: ", "))")
        }
        let text = try ConfigReader.string(found, key: fullKey(key))
        if ignoringCase, !choices.contains(text) {
            let lower = text.lowercased()
            if let chosen = choices.first(where: { $0.lowercased() == lower }) { return chosen }
        }
        guard choices.contains(text) else {
            let hint = suggestion(for: text, among: choices).map { "; did you mean '\($0)'?" } ?? ""
            throw PresetError.invalid(key: fullKey(key), origin: found.origin, value: "'\(text)'",
                                      expected: "one of: \(choices.joined(separator: ", "))\(hint)")
        }
        return text
    }

    /// Any text, parsed by `parse` (nil means not accepted; `expected` says what is). `shown`
    /// is how the default is written in the reference, when not as it prints (none for an empty text).
    public mutating func parsed<T>(_ key: String, default value: T, shown: String? = nil, type: String = "text", expected: String, _ meaning: @autoclosure () -> String,
                                   _ parse: (String) -> T?) throws -> T {
        guard let found = lookup(key, type, shown ?? "\(value)", expected, meaning()) else { return value }
        let text = try ConfigReader.string(found, key: fullKey(key))
        guard let result = parse(text) else {
            throw PresetError.invalid(key: fullKey(key), origin: found.origin, value: "'\(text)'", expected: expected)
        }
        return result
    }

    /// A pair of whole numbers, `[a, b]`, each in `range`.
    public mutating func integerPair(_ key: String, default value: (Int, Int), in range: ClosedRange<Int>, _ meaning: @autoclosure () -> String) throws -> (Int, Int) {
        guard let found = lookup(key, "[integer, integer]", "[\(value.0), \(value.1)]", "each \(range.lowerBound)...\(range.upperBound)", meaning()) else { return value }
        guard case let .sequence(items) = found.value, items.count == 2 else {
            throw PresetError.wrongType(key: fullKey(key), origin: found.origin, found: ConfigReader.kind(of: found), expected: "a list of two whole numbers, like [1080, 1920]")
        }
        return (try ConfigReader.integer(items[0], key: fullKey(key), in: range),
                try ConfigReader.integer(items[1], key: fullKey(key), in: range))
    }

    /// A list of numbers, each in `range`, that `accept` accepts as a whole (`expected` says what it wants).
    public mutating func numbers(_ key: String, default value: [Double], in range: ClosedRange<Double>, expected: String,
                                 _ meaning: @autoclosure () -> String, accept: ([Double]) -> Bool = { _ in true }) throws -> [Double] {
        let shown = "[" + value.map(format).joined(separator: ", ") + "]"
        guard let found = lookup(key, "[number]", shown, "each \(format(range.lowerBound))...\(format(range.upperBound)); \(expected)", meaning()) else { return value }
        guard case let .sequence(items) = found.value else {
            throw PresetError.wrongType(key: fullKey(key), origin: found.origin, found: ConfigReader.kind(of: found), expected: "a list of numbers, \(expected)")
        }
        let list = try items.map { item -> Double in
            let number = try ConfigReader.number(item, key: fullKey(key))
            guard range.contains(number) else {
                throw PresetError.outOfRange(key: fullKey(key), origin: item.origin, value: format(number),
                                             range: "\(format(range.lowerBound))...\(format(range.upperBound))")
            }
            return number
        }
        guard accept(list) else {
            throw PresetError.invalid(key: fullKey(key), origin: found.origin, value: "[" + list.map(format).joined(separator: ", ") + "]", expected: expected)
        }
        return list
    }

    /// A color: #RRGGBB, #RRGGBBAA or a name.
    public mutating func color(_ key: String, default value: Color, _ meaning: @autoclosure () -> String) throws -> Color {
        try parsed(key, default: value, type: "color", expected: "#RRGGBB, #RRGGBBAA or a name (black, white, ...)", meaning()) { Color(parsing: $0) }
    }

    /// true or false.
    public mutating func flag(_ key: String, default value: Bool, _ meaning: @autoclosure () -> String) throws -> Bool {
        guard let found = lookup(key, "boolean", "\(value)", "true \\| false", meaning()) else { return value }
        guard case let .scalar(text, false) = found.value, let flag = ["true": true, "false": false][text] else {
            throw PresetError.wrongType(key: fullKey(key), origin: found.origin, found: ConfigReader.kind(of: found), expected: "true or false")
        }
        return flag
    }

    /// A free-form text.
    public mutating func text(_ key: String, default value: String, _ meaning: @autoclosure () -> String) throws -> String {
        guard let found = lookup(key, "text", value.isEmpty ? "''" : value, "any text", meaning()) else { return value }
        return try ConfigReader.string(found, key: fullKey(key))
    }

    /// A text that must be given and not be empty.
    public mutating func requiredText(_ key: String, expected: String, _ meaning: @autoclosure () -> String) throws -> String {
        guard let found = lookup(key, "text", "(required)", expected, meaning()) else {
            throw PresetError.missingKey(key: fullKey(key), origin: node.origin, expected: expected)
        }
        let text = try ConfigReader.string(found, key: fullKey(key))
        guard !text.isEmpty else {
            throw PresetError.invalid(key: fullKey(key), origin: found.origin, value: "empty", expected: expected)
        }
        return text
    }

    /// A list of one or more texts (`[a.jpg, b.png]`), or nil when the key is absent.
    public mutating func texts(_ key: String, expected: String, _ meaning: @autoclosure () -> String) throws -> [String]? {
        guard let found = lookup(key, "[text]", "(none)", expected, meaning()) else { return nil }
        guard case let .sequence(items) = found.value else {
            throw PresetError.wrongType(key: fullKey(key), origin: found.origin, found: ConfigReader.kind(of: found), expected: "a list: \(expected)")
        }
        guard !items.isEmpty else {
            throw PresetError.invalid(key: fullKey(key), origin: found.origin, value: "an empty list", expected: expected)
        }
        return try items.map { try ConfigReader.string($0, key: fullKey(key)) }
    }

    /// A `set` mapping of preset keys (dotted or nested) to values, as a manifest job or a story
    /// gives them; empty when absent.
    public mutating func settings(_ key: String, _ meaning: @autoclosure () -> String) throws -> [(key: String, value: ConfigNode)] {
        guard let found = lookup(key, "mapping", "(none)", "", meaning()) else { return [] }
        guard case let .mapping(pairs) = found.value else {
            throw PresetError.wrongType(key: fullKey(key), origin: found.origin, found: ConfigReader.kind(of: found), expected: "a mapping of preset keys to values")
        }
        return pairs.map { ($0.key, $0.value) }
    }

    /// The node at `key` as written, for a caller that reads it itself; nil when absent.
    public mutating func raw(_ key: String, type: String, default value: String = "(none)", _ meaning: @autoclosure () -> String) -> ConfigNode? {
        lookup(key, type, value, "", meaning())
    }

    /// A reader for the nested mapping at `key` (an empty one if absent).
    public mutating func section(_ key: String) throws -> ConfigReader {
        asked.append(key)
        var reader = try ConfigReader(node[key] ?? ConfigNode(.mapping([]), origin: node.origin), path: fullKey(key))
        reader.schema = schema
        return reader
    }

    /// Fails on the first key of the mapping that no read asked for.
    public func finish() throws {
        guard case let .mapping(pairs) = node.value else { return }
        for pair in pairs where !asked.contains(pair.key) {
            throw PresetError.unknownKey(key: fullKey(pair.key), origin: pair.value.origin, known: asked)
        }
    }

    // MARK: scalars

    static func kind(of node: ConfigNode) -> String {
        switch node.value {
        case let .scalar(text, quoted): return quoted || Double(text) == nil ? "the text '\(text)'" : "the number \(text)"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }

    static func string(_ node: ConfigNode, key: String) throws -> String {
        guard case let .scalar(text, _) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: kind(of: node), expected: "a single value")
        }
        return text
    }

    static func number(_ node: ConfigNode, key: String) throws -> Double {
        guard case let .scalar(text, quoted) = node.value, !quoted, let number = Double(text), number.isFinite else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: kind(of: node), expected: "a number")
        }
        return number
    }

    static func integer(_ node: ConfigNode, key: String, in range: ClosedRange<Int>) throws -> Int {
        let value = try number(node, key: key)
        guard value == value.rounded() else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: kind(of: node), expected: "a whole number")
        }
        guard value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw PresetError.outOfRange(key: key, origin: node.origin, value: format(value), range: "\(range.lowerBound)...\(range.upperBound)")
        }
        return Int(value)
    }
}

/// A number as a person writes it: no trailing ".0".
func format(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}
