// libyaml (the system's, through pkg-config): its event parser is what decides whether a
// document uses anchors and aliases, rather than a look at the text.
import CYAML

/// Builds a `ConfigNode` tree straight from libyaml's parser events, so that the YAML a
/// preset or manifest may hold is decided by the parser: anchors and aliases are refused at
/// the event that declares them (an alias bomb is never expanded), nesting is limited, and
/// a document is one mapping, list or value.
enum YAMLEvents {
    /// Deeper nesting than any preset or manifest needs is refused.
    static let maxDepth = 64

    static func parse(_ text: String, name: String, origin: @escaping (Int) -> ConfigOrigin) throws -> ConfigNode {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { bytes = [0x0A] }
        return try bytes.withUnsafeBufferPointer { buffer in
            // libyaml keeps its state in the struct: it stays in one place while in use.
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            defer { parser.deallocate() }
            guard yaml_parser_initialize(parser) == 1 else { throw PresetError.syntax(name, detail: "out of memory") }
            defer { yaml_parser_delete(parser) }
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            var reader = Reader(parser: parser, bytes: buffer, name: name, origin: origin)
            return try reader.document()
        }
    }

    /// One pass over the events.
    private struct Reader {
        let parser: UnsafeMutablePointer<yaml_parser_t>
        let bytes: UnsafeBufferPointer<UInt8>
        let name: String
        let origin: (Int) -> ConfigOrigin

        /// The next event's kind, value and line; the event is released at once.
        struct Event {
            var type: yaml_event_type_t
            var text = ""
            var quoted = false
            var anchor: String?
            var line: Int
        }

        mutating func next() throws -> Event {
            var event = yaml_event_t()
            guard yaml_parser_parse(parser, &event) == 1 else {
                let state = parser.pointee
                var (line, column) = (Int(state.problem_mark.line) + 1, Int(state.problem_mark.column) + 1)
                if state.error == YAML_READER_ERROR {
                    // A reader's error (a control character, bytes that are not UTF-8) has only
                    // the byte where it is: its line and column counted here.
                    let at = min(Int(state.problem_offset), bytes.count)
                    let before = bytes[..<at]
                    line = before.count(where: { $0 == 0x0A }) + 1
                    column = at - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
                }
                var detail = "line \(line), column \(column): "
                detail += state.problem.map { String(cString: $0) } ?? "not valid YAML"
                if let context = state.context { detail += " (\(String(cString: context)))" }
                throw PresetError.syntax(name, detail: detail)
            }
            defer { yaml_event_delete(&event) }
            var result = Event(type: event.type, line: Int(event.start_mark.line) + 1)
            func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
                pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            }
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                result.text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: Int(scalar.length)), as: UTF8.self)
                let style = scalar.style
                result.quoted = style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                    || string(scalar.tag) == "tag:yaml.org,2002:str"
                result.anchor = string(scalar.anchor)
            case YAML_SEQUENCE_START_EVENT:
                result.anchor = string(event.data.sequence_start.anchor)
            case YAML_MAPPING_START_EVENT:
                result.anchor = string(event.data.mapping_start.anchor)
            case YAML_ALIAS_EVENT:
                result.anchor = string(event.data.alias.anchor)
            default:
                break
            }
            return result
        }

        /// The stream's one document; an empty stream is an empty mapping.
        mutating func document() throws -> ConfigNode {
            var event = try next()   // stream start
            event = try next()
            if event.type == YAML_STREAM_END_EVENT { return ConfigNode(.mapping([]), origin: origin(1)) }
            let root = try node(try next(), depth: 0)
            _ = try next()           // document end
            let after = try next()
            guard after.type == YAML_STREAM_END_EVENT else {
                throw PresetError.invalid(key: "(YAML)", origin: origin(after.line), value: "a second document", expected: "one document per file")
            }
            return root
        }

        mutating func node(_ event: Event, depth: Int) throws -> ConfigNode {
            let here = origin(event.line)
            if event.type == YAML_ALIAS_EVENT || event.anchor != nil {
                throw PresetError.invalid(key: "(YAML)", origin: here, value: "an anchor or alias (&\(event.anchor ?? "") or *\(event.anchor ?? ""))",
                                          expected: "plain values; write each value out")
            }
            guard depth < YAMLEvents.maxDepth else {
                throw PresetError.invalid(key: "(YAML)", origin: here, value: "nested more than \(YAMLEvents.maxDepth) levels deep",
                                          expected: "a shallower document")
            }
            switch event.type {
            case YAML_SCALAR_EVENT:
                return ConfigNode(.scalar(event.text, quoted: event.quoted), origin: here)
            case YAML_SEQUENCE_START_EVENT:
                var items: [ConfigNode] = []
                while true {
                    let item = try next()
                    if item.type == YAML_SEQUENCE_END_EVENT { break }
                    items.append(try node(item, depth: depth + 1))
                }
                return ConfigNode(.sequence(items), origin: here)
            case YAML_MAPPING_START_EVENT:
                var pairs: [(key: String, value: ConfigNode)] = []
                while true {
                    let keyEvent = try next()
                    if keyEvent.type == YAML_MAPPING_END_EVENT { break }
                    let key = try node(keyEvent, depth: depth + 1)
                    guard case let .scalar(text, _) = key.value else {
                        throw PresetError.invalid(key: "(a key)", origin: key.origin, value: "a complex key", expected: "a plain name")
                    }
                    if pairs.contains(where: { $0.key == text }) {
                        throw PresetError.invalid(key: text, origin: key.origin, value: "a second '\(text)'", expected: "each key once")
                    }
                    pairs.append((text, try node(try next(), depth: depth + 1)))
                }
                return ConfigNode(.mapping(pairs), origin: here)
            default:
                throw PresetError.syntax(name, detail: "line \(event.line): unexpected YAML event")
            }
        }
    }
}
