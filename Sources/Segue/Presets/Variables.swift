import Foundation

/// The `{{variables}}` of a story or a preset: those its `vars:` declares, each with its
/// default (nil: it must be given), and those its values use, each with where it is first
/// used. A story's variables include its preset's (see `StoryTemplate`).
public struct TemplateVariables: Sendable {
    /// The declared variables in file order (a preset's before its story's).
    public var declared: [(name: String, value: String?)] = []
    /// Every variable used, with where it is first used.
    public var used: [String: ConfigOrigin] = [:]

    /// Takes `vars:` out of a file's tree (`root`) and reads the variables it declares and
    /// the ones the rest of the tree uses.
    init(taking root: inout ConfigNode) throws {
        if case var .mapping(pairs) = root.value, let index = pairs.firstIndex(where: { $0.key == "vars" }) {
            let node = pairs.remove(at: index).value
            root.value = .mapping(pairs)
            guard case let .mapping(items) = node.value else {
                throw PresetError.wrongType(key: "vars", origin: node.origin, found: ConfigReader.kind(of: node), expected: "a mapping of names to default values (~ for none)")
            }
            for (name, value) in items {
                guard StoryTemplate.isName(name) else {
                    throw PresetError.invalid(key: "vars." + name, origin: value.origin, value: "'\(name)'", expected: "a name of letters, digits, _ and - (starting with a letter or _)")
                }
                guard case let .scalar(text, quoted) = value.value else {
                    throw PresetError.wrongType(key: "vars." + name, origin: value.origin, found: ConfigReader.kind(of: value), expected: "a default value (a single value, or ~ for none)")
                }
                declared.append((name, !quoted && ["", "~", "null"].contains(text) ? nil : text))
            }
        }
        var used: [String: ConfigOrigin] = [:]
        root.visitScalars { text, origin in
            for name in StoryTemplate.names(in: text) where used[name] == nil { used[name] = origin }
        }
        self.used = used
    }

    init() {}

    /// These variables (a story's) over `base` (its preset's): the declared defaults of both,
    /// this one's winning; the uses of both, this one's origin first.
    func over(_ base: TemplateVariables) -> TemplateVariables {
        var all = TemplateVariables()
        all.declared = base.declared + declared
        all.used = base.used.merging(used) { _, mine in mine }
        return all
    }

    /// The value each variable gets: the default, then `values` over it (an empty value of a
    /// variable with a default takes the default).
    public func resolved(_ values: [String: String]) -> [String: String] {
        var all: [String: String] = [:]
        for (name, value) in declared { if let value { all[name] = value } }
        for (name, value) in values where !value.isEmpty || all[name] == nil { all[name] = value }
        return all
    }

    /// Whether the last declaration of `name` gives it a default.
    func hasDefault(_ name: String) -> Bool {
        declared.last(where: { $0.name == name }).map { $0.value != nil } ?? false
    }

    /// The variables used that have no value (no default, and none given or only empty).
    public func missing(_ values: [String: String]) -> [String] {
        let all = resolved(values)
        return used.keys.filter { name in
            guard let value = all[name] else { return true }
            // Empty is a value only where the default is empty too.
            return value.isEmpty && !hasDefault(name)
        }.sorted()
    }
}

extension PresetLibrary {
    /// The variables a preset (with what it extends) declares and uses.
    public func variables(of nameOrPath: String) throws -> TemplateVariables {
        var node = try node(for: nameOrPath)
        return try TemplateVariables(taking: &node)
    }

    /// A preset's tree (what it extends beneath it) with `values` in its `{{variables}}` and
    /// no `vars:`; nil values keep the variables as written. A variable the preset uses that
    /// has neither a default nor a value is an error naming where it is used.
    func node(for nameOrPath: String, vars values: [String: String]?) throws -> ConfigNode {
        var plain = try node(for: nameOrPath)
        let variables = try TemplateVariables(taking: &plain)
        guard let values, !variables.used.isEmpty else { return plain }
        let missing = variables.missing(values)
        guard missing.isEmpty else {
            let problems = missing.map { name in
                PresetError.invalid(key: "{{\(name)}}", origin: variables.used[name]!, value: "without a value",
                                    expected: "a default under vars: in the preset (or its story), or --var \(name)=VALUE")
            }
            throw problems.count == 1 ? problems[0] : .several(problems)
        }
        var node = try node(for: nameOrPath, relativeTo: nil, chain: [], values: variables.resolved(values))
        node.remove("vars")
        return node
    }
}

extension ConfigNode {
    /// This file's tree with `values` in its variables, its `vars:` kept as written.
    func substitutingKeepingVars(_ values: [String: String]) throws -> ConfigNode {
        let vars = self["vars"]
        var node = self
        node.remove("vars")
        node = try node.substituting(values)
        if let vars { node.append("vars", vars) }
        return node
    }
}

extension PresetLibrary {
    /// The presets' texts parsed so far, by name and text: a batch's rows read the same preset
    /// once each, and parse it once.
    private static let parsedTexts = Locked<[String: ConfigNode]>([:])

    /// `text` parsed as a preset named `name` (as `ConfigNode.parse` names it).
    static func parsed(_ text: String, name: String) throws -> ConfigNode {
        let key = name + "\u{0}" + text
        if let node = parsedTexts.withLock({ $0[key] }) { return node }
        let node = try ConfigNode.parse(yaml: text, name: name)
        parsedTexts.withLock {
            if $0.count >= 64 { $0.removeAll() }
            $0[key] = node
        }
        return node
    }
}
