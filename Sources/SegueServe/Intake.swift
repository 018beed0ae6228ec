package import Foundation
package import Segue

/// A render request read: the story's tree (or the template's and its row), the output's
/// format, the webhook and the metadata. Both JSON and YAML bodies are read by the story
/// reader's own parser, so a problem names the body's line and key as a story file's would.
struct RenderAsk: Sendable {
    var root: ConfigNode
    var format: String
    var webhook: String?
    /// The metadata as JSON text.
    var metadata: String?

    static let keys = ["story", "template", "row", "format", "webhook", "metadata"]
    static let formats: [String: OutputFormat] = ["mp4": .mp4, "webm": .webm, "mov": .mov, "gif": .gif, "webp": .webp]

    init(text: String) throws {
        root = try ConfigNode.parse(yaml: text, name: "request body")
        guard case let .mapping(pairs) = root.value else {
            throw ServeProblem.invalid("the body is not a mapping: expected {story: {...}} or {template: FILE, row: {...}}")
        }
        if let unknown = pairs.first(where: { !RenderAsk.keys.contains($0.key) }) {
            throw ServeProblem.invalid("\(unknown.key) (\(unknown.value.origin)): not a key of a render request; expected one of \(RenderAsk.keys.joined(separator: ", "))",
                                       errors: [.init(message: "unknown key", line: RenderAsk.line(unknown.value), key: unknown.key)])
        }
        guard (root["story"] == nil) != (root["template"] == nil) else {
            throw ServeProblem.invalid("give a story, or a template and its row: one of the keys story and template", errors: [.init(message: "expected one of story and template", key: "story")])
        }
        if let story = root["story"], !story.isMapping {
            throw ServeProblem.invalid("story: expected a mapping of a story's keys (preset, set, slides, ...)",
                                       errors: [.init(message: "expected a mapping", line: RenderAsk.line(story), key: "story")])
        }
        if let row = root["row"] {
            guard root["template"] != nil else {
                throw ServeProblem.invalid("row: the values of a template's variables, given with a template", errors: [.init(message: "only with a template", line: RenderAsk.line(row), key: "row")])
            }
            guard row.isMapping else {
                throw ServeProblem.invalid("row: expected a mapping of the template's variables", errors: [.init(message: "expected a mapping", line: RenderAsk.line(row), key: "row")])
            }
        }
        format = try RenderAsk.text(root["format"], key: "format") ?? "mp4"
        guard RenderAsk.formats[format] != nil else {
            throw ServeProblem.invalid("format: '\(format)' is not an output kind; expected one of \(RenderAsk.formats.keys.sorted().joined(separator: ", "))", errors: [.init(message: "unknown format", key: "format")])
        }
        webhook = try RenderAsk.text(root["webhook"], key: "webhook")
        if let webhook {
            guard let url = URL(string: webhook), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ServeProblem.invalid("webhook: '\(webhook.prefix(200))' is not an http or https URL", errors: [.init(message: "expected an http or https URL", key: "webhook")])
            }
        }
        if let node = root["metadata"] {
            guard node.isMapping else { throw ServeProblem.invalid("metadata: expected a mapping", errors: [.init(message: "expected a mapping", key: "metadata")]) }
            metadata = String(decoding: try JSONSerialization.data(withJSONObject: RenderAsk.json(node), options: [.sortedKeys]), as: UTF8.self)
        }
    }

    /// The request in one form whatever its spacing, key order or syntax (JSON or YAML): keys
    /// sorted, texts quoted as written. The same canonical form is the same request.
    var canonical: String { RenderAsk.canonical(root) }

    static func canonical(_ node: ConfigNode) -> String {
        var written = ""
        write(node, into: &written)
        return written
    }

    private static func write(_ node: ConfigNode, into written: inout String) {
        func quote(_ text: String) {
            written.unicodeScalars.append("\"")
            for character in text.unicodeScalars {
                if character == "\\" || character == "\"" { written.unicodeScalars.append("\\") }
                written.unicodeScalars.append(character)
            }
            written.unicodeScalars.append("\"")
        }
        switch node.value {
        case let .scalar(text, quoted):
            if !quoted { written += "=" }
            quote(text)
        case let .sequence(items):
            written += "["
            for (index, item) in items.enumerated() {
                if index > 0 { written += "," }
                write(item, into: &written)
            }
            written += "]"
        case let .mapping(pairs):
            written += "{"
            for (index, pair) in pairs.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { written += "," }
                quote(pair.key)
                written += ":"
                write(pair.value, into: &written)
            }
            written += "}"
        }
    }

    static func line(_ node: ConfigNode) -> Int? {
        if case let .file(_, line) = node.origin { return line }
        return nil
    }

    static func text(_ node: ConfigNode?, key: String) throws -> String? {
        guard let node else { return nil }
        guard case let .scalar(text, _) = node.value else { throw ServeProblem.invalid("\(key): expected text", errors: [.init(message: "expected text", line: line(node), key: key)]) }
        return text
    }

    /// A tree as JSON values: YAML's plain numbers, booleans and null as JSON's, the rest text.
    static func json(_ node: ConfigNode) -> Any {
        switch node.value {
        case let .scalar(text, quoted):
            if quoted { return text }
            if text == "true" || text == "false" { return text == "true" }
            if text == "null" || text == "~" { return NSNull() }
            if let number = Int(text) { return number }
            if let number = Double(text), number.isFinite { return number }
            return text
        case let .sequence(items): return items.map(json)
        case let .mapping(pairs): return Dictionary(pairs.map { ($0.key, json($0.value)) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// The job this request makes, writing `output`: its story read with every path it names
    /// kept inside `inputs` (a path outside is refused, naming its key), and the files sent
    /// with it (in `uploads`) found by their names first.
    /// `library`: where the story's presets are found (nil: as `segue render` finds them).
    func job(inputs: [String], uploads: String? = nil, output: String, limits: Limits, threads: Int, library: PresetLibrary? = nil) throws -> Job {
        try job(inputs: inputs, uploads: uploads, output: output, limits: limits, threads: threads, library: library) { $0 }
    }

    /// The job, and what `then` makes of it while the story's files are still taken as they
    /// were found (a fingerprint: each file looked at once for both).
    func job<T>(inputs: [String], uploads: String? = nil, output: String, limits: Limits, threads: Int, library: PresetLibrary? = nil,
                then: (Job) throws -> T) throws -> T {
        let confinement = PathConfinement(folders: inputs, uploaded: uploads.map(Uploads.sent) ?? [:])
        let base = inputs[0] + "/request.yaml"
        do {
            return try confinement.reading {
                let story: Story
                if let node = root["template"] {
                    let name = try RenderAsk.text(node, key: "template") ?? ""
                    let path = name.hasPrefix("/") ? name : inputs[0] + "/" + name
                    guard confinement.admits(path) else { throw RenderAsk.outside(name, key: "template", node: node) }
                    var row: [String: String] = [:]
                    if let rowNode = root["row"] {
                        guard case let .mapping(pairs) = rowNode.value else { throw ServeProblem.invalid("row: expected a mapping of the template's variables") }
                        for pair in pairs { row[pair.key] = try RenderAsk.text(pair.value, key: "row.\(pair.key)") }
                    }
                    story = try StoryTemplate.load(path, library: library).story(row)
                } else {
                    story = try StoryTemplate(tree: root["story"]!, path: base, library: library).story([:])
                }
                var request = try JobRequest(story: story, library: library, output: output, format: RenderAsk.formats[format], limits: limits, overwrite: true)
                request.delivery.threads = threads
                let job = try Job(request)
                try job.validate()
                if confinement.refused.isEmpty { return try then(job) }
                throw RenderAsk.outside(confinement.refused[0], key: RenderAsk.key(naming: confinement.refused[0], in: root) ?? "story", node: nil)
            }
        } catch let error where !(error is ServeProblem) {
            // A path refused while reading shows as a file that is not there: say why instead.
            if let refused = confinement.refused.first {
                throw RenderAsk.outside(refused, key: RenderAsk.key(naming: refused, in: root) ?? "story", node: nil)
            }
            // The story's problems name their keys from the body's top, as the refusals do.
            guard root["story"] != nil else { throw error }
            let errors = ServeProblem.errors(of: error).map { entry in
                var entry = entry
                entry.key = entry.key.map { "story." + $0 }
                return entry
            }
            throw ServeProblem.invalid("\(error)", errors: errors)
        }
    }

    static func outside(_ path: String, key: String, node: ConfigNode?) -> ServeProblem {
        ServeProblem.invalid("\(key): '\(path)' is outside the service's inputs folders; expected a file in them",
                             errors: [.init(message: "outside the inputs folders", line: node.flatMap(line), key: key)])
    }

    /// The dotted key (`story.slides[2].image`, counting from 1 as the story reader's keys
    /// do) whose value is `text`, or nil.
    static func key(naming text: String, in node: ConfigNode, at path: String = "") -> String? {
        switch node.value {
        case let .scalar(value, _): return value == text ? path : nil
        case let .sequence(items):
            for (index, item) in items.enumerated() { if let found = key(naming: text, in: item, at: "\(path)[\(index + 1)]") { return found } }
        case let .mapping(pairs):
            for pair in pairs { if let found = key(naming: text, in: pair.value, at: path.isEmpty ? pair.key : "\(path).\(pair.key)") { return found } }
        }
        return nil
    }
}

private extension ConfigNode {
    var isMapping: Bool {
        if case .mapping = value { return true }
        return false
    }
}
