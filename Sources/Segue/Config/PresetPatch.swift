import Foundation

/// Preset keys set over a preset as one layer: the command line's options, a target's keys,
/// a batch's shared settings. Typed values stay typed: each becomes a node of the
/// configuration tree directly, with the option it came from as its origin, and nothing is
/// printed as YAML to be read again. Only a `--set KEY=VALUE` (which the user wrote as YAML)
/// is read as YAML, once.
public struct PresetPatch: Sendable, ExpressibleByArrayLiteral {
    /// One key set by a patch.
    public enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int)
        case number(Double)
        case integers([Int])
        case numbers([Double])
        case rate(FrameRate)
    }

    private enum Entry: Sendable {
        /// A `--set KEY=VALUE`, the value written as YAML.
        case override(String)
        /// A typed value at a dotted path.
        case value(path: [String], node: ConfigNode)
    }

    private var entries: [Entry] = []

    public init() {}

    /// `--set KEY=VALUE` texts, in the order they apply.
    public init(arrayLiteral overrides: String...) { self.init(overrides: overrides) }

    /// `--set KEY=VALUE` texts, in the order they apply.
    public init(overrides: [String]) { entries = overrides.map(Entry.override) }

    /// Adds a `--set KEY=VALUE` text, applied after what is already here.
    public mutating func append(override text: String) { entries.append(.override(text)) }

    /// Sets `key` (dotted: `canvas.size`) to a typed value, applied after what is already
    /// here; `origin` is what errors name (`--fps 15`, `target instagram-story`).
    public mutating func set(_ key: String, _ value: Value, origin: ConfigOrigin) {
        entries.append(.value(path: key.split(separator: ".").map(String.init), node: ConfigNode(value, origin: origin)))
    }

    /// The patch as one configuration layer, later entries over earlier ones.
    public func layer() throws -> ConfigNode {
        var layer = ConfigNode(.mapping([]), origin: .builtIn)
        for entry in entries {
            switch entry {
            case let .override(text): layer = try ConfigNode(override: text).timingShorthand().merged(over: layer)
            case let .value(path, node): layer = ConfigNode(path: path, value: node).timingShorthand().merged(over: layer)
            }
        }
        return layer
    }
}

extension ConfigNode {
    /// A typed value as a node: texts quoted (never read as a number), numbers in the
    /// shortest form that reads back exactly, lists as sequences.
    init(_ value: PresetPatch.Value, origin: ConfigOrigin) {
        func number(_ v: Double) -> ConfigNode { ConfigNode(.scalar(v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)", quoted: false), origin: origin) }
        switch value {
        case let .text(text): self.init(.scalar(text, quoted: true), origin: origin)
        case let .integer(v): self.init(.scalar(String(v), quoted: false), origin: origin)
        case let .number(v): self = number(v)
        case let .integers(values): self.init(.sequence(values.map { ConfigNode(.scalar(String($0), quoted: false), origin: origin) }), origin: origin)
        case let .numbers(values): self.init(.sequence(values.map(number)), origin: origin)
        case let .rate(rate): self.init(.scalar(rate.description, quoted: true), origin: origin)
        }
    }
}
