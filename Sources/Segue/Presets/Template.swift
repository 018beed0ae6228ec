import Foundation
import Mustache

/// A story with `{{variables}}`: any text value of it (a text, an image or clip path, a colour,
/// a caption file, the music) may use `{{name}}`, rendered by Mustache with its escaping off.
/// The story declares its variables and their defaults under `vars:` (`name: Ana`, or
/// `photo: ~` for one that must be given). Substitution happens on the parsed values, each a
/// text already: a value can never add YAML structure. A value that is one tag alone
/// (`size: "{{size}}"`) may be a number or a list's item; elsewhere it stays text.
public struct StoryTemplate: Sendable {
    public let path: String
    /// The story without its `vars:`.
    let root: ConfigNode
    /// The declared variables in file order, each with its default (nil: it must be given).
    public let declared: [(name: String, value: String?)]
    /// Every variable the story uses, with where it is first used.
    public let used: [String: ConfigOrigin]

    /// Reads a story file and the variables it declares and uses.
    public static func load(_ path: String) throws -> StoryTemplate {
        let text = try PresetLibrary.read(path, limit: Story.maxFileSize, kind: "story")
        var root = try ConfigNode.parse(yaml: text, name: "story \(path)")
        var declared: [(name: String, value: String?)] = []
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
        return StoryTemplate(path: path, root: root, declared: declared, used: used)
    }

    /// The value each variable the story uses gets: the default, then `values` over it (an
    /// empty value of a variable with a default takes the default).
    public func resolved(_ values: [String: String]) -> [String: String] {
        var all: [String: String] = [:]
        for (name, value) in declared { if let value { all[name] = value } }
        for (name, value) in values where !value.isEmpty || all[name] == nil { all[name] = value }
        return all
    }

    /// The variables the story uses that have no value (no default, and none given or only empty).
    public func missing(_ values: [String: String]) -> [String] {
        let all = resolved(values)
        return used.keys.filter { name in
            guard let value = all[name] else { return true }
            // Empty is a value only where the story's default is empty too.
            return value.isEmpty && declared.first(where: { $0.name == name })?.value == nil
        }.sorted()
    }

    /// The story with `values` (over the defaults) in its variables. A variable it uses without
    /// a value, or a value for one it does not use, is an error.
    public func story(_ values: [String: String]) throws -> Story {
        var problems: [PresetError] = []
        for name in values.keys.sorted() where used[name] == nil {
            problems.append(.unknownKey(key: name, origin: .option("--var \(name)=\(values[name]!), story \(path)"), known: used.keys.sorted()))
        }
        for name in missing(values) {
            problems.append(.invalid(key: "{{\(name)}}", origin: used[name]!, value: "without a value",
                                     expected: "a default under vars: in \(path), or --var \(name)=VALUE"))
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        return try storyUnchecked(resolved(values))
    }

    /// The story with exactly `values` in its variables (a missing one renders as nothing).
    func storyUnchecked(_ values: [String: String]) throws -> Story {
        let tree = used.isEmpty ? root : try root.substituting(values)
        return try Story.read(tree: tree, path: path)
    }

    /// Renders `text` as a Mustache template with `values`, HTML escaping off.
    public static func render(_ text: String, _ values: [String: String], origin: ConfigOrigin) throws -> String {
        do {
            return try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT }}" + text).render(values)
        } catch {
            throw PresetError.invalid(key: "(template)", origin: origin, value: "'\(text)'", expected: "a Mustache template: {{name}} for a variable (\(error))")
        }
    }

    /// The variables a Mustache text names: `{{name}}`, `{{{name}}}`, `{{& name}}` and sections.
    static func names(in text: String) -> Set<String> {
        guard text.contains("{{") else { return [] }
        var found: Set<String> = []
        var rest = text[...]
        while let open = rest.range(of: "{{") {
            rest = rest[open.upperBound...]
            guard let close = rest.range(of: "}}") else { break }
            var tag = rest[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = rest[close.upperBound...]
            if tag.hasPrefix("{") { tag.removeFirst() }
            if let first = tag.first, "!%>=<$".contains(first) { continue }
            if let first = tag.first, "&#^/".contains(first) { tag = String(tag.dropFirst()).trimmingCharacters(in: .whitespaces) }
            let name = String(tag.split(separator: ".").first ?? "")
            if isName(name) { found.insert(name) }
        }
        return found
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0 == "-" || CharacterSet.alphanumerics.contains($0) }
    }
}

extension ConfigNode {
    /// Calls `body` with every scalar's text and origin.
    func visitScalars(_ body: (String, ConfigOrigin) -> Void) {
        switch value {
        case let .scalar(text, _): body(text, origin)
        case let .sequence(items): for item in items { item.visitScalars(body) }
        case let .mapping(pairs): for pair in pairs { pair.value.visitScalars(body) }
        }
    }

    /// This tree with `values` rendered into every scalar that names a variable. A scalar that
    /// is one tag alone is read as YAML reads a plain value (it may be a number); any other
    /// keeps its quoting.
    func substituting(_ values: [String: String]) throws -> ConfigNode {
        switch value {
        case let .scalar(text, quoted):
            guard text.contains("{{") else { return self }
            let rendered = try StoryTemplate.render(text, values, origin: origin)
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let alone = trimmed.hasPrefix("{{") && trimmed.hasSuffix("}}") && trimmed.dropFirst(2).range(of: "{{") == nil
            return ConfigNode(.scalar(rendered, quoted: alone ? false : quoted), origin: origin)
        case let .sequence(items):
            return ConfigNode(.sequence(try items.map { try $0.substituting(values) }), origin: origin)
        case let .mapping(pairs):
            return ConfigNode(.mapping(try pairs.map { (key: $0.key, value: try $0.value.substituting(values)) }), origin: origin)
        }
    }
}
