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
    /// The story's variables, with its preset's beneath them.
    public let variables: TemplateVariables
    /// The declared variables in file order, each with its default (nil: it must be given).
    public var declared: [(name: String, value: String?)] { variables.declared }
    /// Every variable the story or its preset uses, with where it is first used.
    public var used: [String: ConfigOrigin] { variables.used }

    /// Reads a story file and the variables it and its preset declare and use. `preset`
    /// replaces the story's own (the command line's `--preset`); a preset `library` does not
    /// find is left for the job to report.
    public static func load(_ path: String, library: PresetLibrary? = nil, preset: String? = nil) throws -> StoryTemplate {
        let text = try PresetLibrary.read(path, limit: Story.maxFileSize, kind: "story")
        return try StoryTemplate(tree: try ConfigNode.parse(yaml: text, name: "story \(path)"), path: path, library: library, preset: preset)
    }

    /// The value each variable the story uses gets: the default, then `values` over it (an
    /// empty value of a variable with a default takes the default).
    public func resolved(_ values: [String: String]) -> [String: String] { variables.resolved(values) }

    /// The variables the story uses that have no value (no default, and none given or only empty).
    public func missing(_ values: [String: String]) -> [String] { variables.missing(values) }

    /// The story with `values` (over the defaults) in its variables. A variable it uses without
    /// a value, or a value for one it does not use, is an error.
    public func story(_ values: [String: String]) throws -> Story {
        var problems: [PresetError] = []
        for name in values.keys.sorted() where used[name] == nil {
            problems.append(.unknownKey(key: name, origin: .option("--var \(name)=\(values[name]!), story \(path)"), known: used.keys.sorted()))
        }
        for name in missing(values) {
            problems.append(.invalid(key: "{{\(name)}}", origin: used[name]!, value: "without a value",
                                     expected: "a default under vars: in the file that uses it, or --var \(name)=VALUE"))
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        return try storyUnchecked(resolved(values))
    }

    /// The story with exactly `values` in its variables (a missing one renders as nothing).
    func storyUnchecked(_ values: [String: String]) throws -> Story {
        let tree = used.isEmpty ? root : try root.substituting(values)
        var story = try Story.read(tree: tree, path: path)
        story.vars = values
        return story
    }

    /// Texts parsed as Mustache templates: a template's every row renders the same texts.
    private static let parsedTemplates = Locked<[String: MustacheTemplate]>([:])

    /// Renders `text` as a Mustache template with `values`, HTML escaping off.
    public static func render(_ text: String, _ values: [String: String], origin: ConfigOrigin) throws -> String {
        do {
            if let parsed = parsedTemplates.withLock({ $0[text] }) { return parsed.render(values) }
            let parsed = try MustacheTemplate(string: StoryTemplate.textType + text)
            parsedTemplates.withLock {
                if $0.count >= 4096 { $0.removeAll() }
                $0[text] = parsed
            }
            return parsed.render(values)
        } catch let error as MustacheTemplate.ParserError {
            // Where in the text, without the line Segue puts before it.
            let context = error.context
            let column = context.lineNumber == 1 ? max(1, context.columnNumber - StoryTemplate.textType.count) : context.columnNumber
            throw PresetError.invalid(key: "(template)", origin: origin, value: "'\(shortened(text))'",
                                      expected: "a Mustache template: {{name}} for a variable; \(StoryTemplate.problem(error.error)) at line \(context.lineNumber), column \(column) of the text")
        } catch {
            throw PresetError.invalid(key: "(template)", origin: origin, value: "'\(shortened(text))'", expected: "a Mustache template: {{name}} for a variable (\(error))")
        }
    }

    /// Put before every text, so that Mustache escapes nothing.
    private static let textType = "{{% CONTENT_TYPE: TEXT }}"

    /// A Mustache parser's error in words.
    static func problem(_ error: any Error) -> String {
        switch error as? MustacheTemplate.Error {
        case .unfinishedName?: "a tag is not closed with }}"
        case .sectionCloseNameIncorrect?: "a section is closed with another name than it was opened with"
        case .expectedSectionEnd?: "a section {{#name}} is not closed with {{/name}}"
        case .invalidSetDelimiter?: "a delimiter tag is not of the form {{=<% %>=}}"
        default: "\(error)"
        }
    }

    /// The variables a Mustache text names: `{{name}}`, `{{{name}}}`, `{{& name}}` and sections.
    static func names(in text: String) -> Set<String> {
        guard hasTag(text[...]) else { return [] }
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

    /// Whether `text` holds "{{", by its bytes (every scalar of every row is asked).
    static func hasTag(_ text: Substring) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "{"), previous == byte { return true }
            previous = byte
        }
        return false
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
            guard StoryTemplate.hasTag(text[...]) else { return self }
            let rendered = try StoryTemplate.render(text, values, origin: origin)
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let alone = trimmed.hasPrefix("{{") && trimmed.hasSuffix("}}") && !StoryTemplate.hasTag(trimmed.dropFirst(2))
            return ConfigNode(.scalar(rendered, quoted: alone ? false : quoted), origin: origin)
        case let .sequence(items):
            return ConfigNode(.sequence(try items.map { try $0.substituting(values) }), origin: origin)
        case let .mapping(pairs):
            return ConfigNode(.mapping(try pairs.map { (key: $0.key, value: try $0.value.substituting(values)) }), origin: origin)
        }
    }
}

extension StoryTemplate {
    /// A story's parsed tree as a template (a service's request): `path` is where it counts as
    /// written, whose folder its relative paths are taken from.
    public init(tree: ConfigNode, path: String, library: PresetLibrary? = nil, preset: String? = nil) throws {
        var root = tree
        var variables = try TemplateVariables(taking: &root)
        let folder = (path as NSString).deletingLastPathComponent
        var name = preset
        if name == nil, case let .scalar(text, _)? = root["preset"]?.value, !text.contains("{{") {
            name = PresetLibrary.looksLikePath(text) ? Paths.resolve(text, in: folder) : text
        }
        if let found = try? (library ?? PresetLibrary.standard()).variables(of: name ?? PresetLibrary.defaultPreset) {
            variables = variables.over(found)
        }
        self.init(path: path, root: root, variables: variables)
    }
}
