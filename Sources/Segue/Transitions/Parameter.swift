/// One value of a transition's parameter, as a preset gives it.
public enum ParameterValue: Hashable, Sendable {
    case number(Double)
    case integer(Int)
    case flag(Bool)
    case text(String)
    case color(Color)
    case numbers([Double])
}

/// A transition's parameter, declared once as a static property of the transition (as
/// gl-transitions declares `uniform float persp; // = 0.7`): its key in the preset's
/// `transition` section, its default, what it accepts and one line of meaning. The preset
/// reader, `docs/presets.md` and `segue presets show` read these declarations; the
/// transition reads its values with them (`values[Self.perspective]`).
public struct Parameter<Value: Sendable>: Sendable {
    public let key: String
    public let defaultValue: Value
    /// Reads the value at `key` (or the default) from a preset's `transition` section,
    /// declaring the key with its range and meaning as it does.
    let read: @Sendable (inout ConfigReader) throws -> ParameterValue
    let wrap: @Sendable (Value) -> ParameterValue
    let unwrap: @Sendable (ParameterValue) -> Value?

    /// The parameter without its Swift type, for a transition's list of parameters.
    public var erased: AnyParameter { AnyParameter(key: key, read: read, defaultValue: wrap(defaultValue)) }
}

/// A parameter in a transition's list: its key, how to read it, its default.
public struct AnyParameter: Sendable {
    public let key: String
    let read: @Sendable (inout ConfigReader) throws -> ParameterValue
    let defaultValue: ParameterValue
}

extension Parameter where Value == Double {
    /// A number in `range`.
    public static func number(_ key: String, default value: Double, in range: ClosedRange<Double>, _ meaning: String) -> Parameter {
        Parameter(key: key, defaultValue: value, read: { .number(try $0.number(key, default: value, in: range, meaning)) },
                  wrap: { .number($0) }, unwrap: { if case let .number(v) = $0 { return v } else { return nil } })
    }
}

extension Parameter where Value == Int {
    /// A whole number in `range`.
    public static func integer(_ key: String, default value: Int, in range: ClosedRange<Int>, _ meaning: String) -> Parameter {
        Parameter(key: key, defaultValue: value, read: { .integer(try $0.integer(key, default: value, in: range, meaning)) },
                  wrap: { .integer($0) }, unwrap: { if case let .integer(v) = $0 { return v } else { return nil } })
    }
}

extension Parameter where Value == Bool {
    /// true or false.
    public static func flag(_ key: String, default value: Bool, _ meaning: String) -> Parameter {
        Parameter(key: key, defaultValue: value, read: { .flag(try $0.flag(key, default: value, meaning)) },
                  wrap: { .flag($0) }, unwrap: { if case let .flag(v) = $0 { return v } else { return nil } })
    }
}

extension Parameter where Value == Color {
    /// A color: #RRGGBB, #RRGGBBAA or a name.
    public static func color(_ key: String, default value: Color, _ meaning: String) -> Parameter {
        Parameter(key: key, defaultValue: value, read: { .color(try $0.color(key, default: value, meaning)) },
                  wrap: { .color($0) }, unwrap: { if case let .color(v) = $0 { return v } else { return nil } })
    }
}

extension Parameter where Value == [Double] {
    /// A list of numbers, each in `range`, that `accept` takes as a whole (`expected` says what it wants).
    public static func numbers(_ key: String, default value: [Double], in range: ClosedRange<Double>, expected: String, _ meaning: String,
                               accept: @escaping @Sendable ([Double]) -> Bool) -> Parameter {
        Parameter(key: key, defaultValue: value,
                  read: { .numbers(try $0.numbers(key, default: value, in: range, expected: expected, meaning, accept: accept)) },
                  wrap: { .numbers($0) }, unwrap: { if case let .numbers(v) = $0 { return v } else { return nil } })
    }
}

extension Parameter where Value == String {
    /// A text, which `check` may refuse when it is given, saying what it expected (a file that must exist).
    public static func text(_ key: String, default value: String, expected: String, _ meaning: String,
                            check: @escaping @Sendable (String) -> String?) -> Parameter {
        Parameter(key: key, defaultValue: value,
                  read: { reader in
                      let text = try reader.parsed(key, default: value, shown: value.isEmpty ? "(none)" : nil, expected: expected, meaning) { $0 }
                      if reader.node[key] != nil, let problem = check(text) {
                          throw PresetError.invalid(key: reader.fullKey(key), origin: reader.node[key]?.origin ?? reader.node.origin,
                                                    value: "'\(text)'", expected: problem)
                      }
                      return .text(text)
                  },
                  wrap: { .text($0) }, unwrap: { if case let .text(v) = $0 { return v } else { return nil } })
    }
}

extension Parameter where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the cases of `Value`, by its raw value.
    public static func choice(_ key: String, default value: Value, _ meaning: String) -> Parameter {
        let names = Value.allCases.map(\.rawValue)
        return Parameter(key: key, defaultValue: value, read: { .text(try $0.choice(key, default: value.rawValue, among: names, meaning)) },
                         wrap: { .text($0.rawValue) }, unwrap: { if case let .text(v) = $0 { return Value(rawValue: v) } else { return nil } })
    }
}

extension Parameter where Value == Point {
    /// A point in the unit square, `[x, y]` with each in 0...1.
    public static func unitPoint(_ key: String, default value: Point, _ meaning: String) -> Parameter {
        Parameter(key: key, defaultValue: value,
                  read: { .numbers(try $0.numbers(key, default: [value.x, value.y], in: 0...1, expected: "[x, y]", meaning) { $0.count == 2 }) },
                  wrap: { .numbers([$0.x, $0.y]) },
                  unwrap: { if case let .numbers(v) = $0, v.count == 2 { return Point(x: v[0], y: v[1]) } else { return nil } })
    }
}

/// The values of a transition's parameters, by key; a key not set takes its parameter's
/// default. Kept sorted by key, so equal values compare, hash and print the same.
public struct ParameterValues: Hashable, Sendable, CustomStringConvertible {
    private(set) var pairs: [(key: String, value: ParameterValue)] = []

    public init() {}

    /// The value of `parameter`.
    public subscript<Value>(_ parameter: Parameter<Value>) -> Value {
        get { pairs.first { $0.key == parameter.key }.flatMap { parameter.unwrap($0.value) } ?? parameter.defaultValue }
        set { set(parameter.key, parameter.wrap(newValue)) }
    }

    /// The value set for `key`, if any.
    func value(_ key: String) -> ParameterValue? { pairs.first { $0.key == key }?.value }

    mutating func set(_ key: String, _ value: ParameterValue) {
        pairs.removeAll { $0.key == key }
        pairs.append((key, value))
        pairs.sort { $0.key < $1.key }
    }

    /// Reads every parameter of a transition from a preset's `transition` section.
    init(reading reader: inout ConfigReader, parameters: [AnyParameter]) throws {
        for parameter in parameters {
            let value = try parameter.read(&reader)
            if value != parameter.defaultValue { set(parameter.key, value) }
        }
    }

    public static func == (a: ParameterValues, b: ParameterValues) -> Bool {
        a.pairs.count == b.pairs.count && zip(a.pairs, b.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs { hasher.combine(pair.key); hasher.combine(pair.value) }
    }

    public var description: String { "[" + pairs.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]" }
}
