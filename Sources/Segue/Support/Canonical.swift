import Foundation

/// A value of the fingerprint's canonical JSON: objects are written with their keys sorted
/// (by their UTF-8 bytes) and no white space, numbers as strings (`Double`'s shortest
/// round-trip form), so the text depends on nothing but the values.
enum Canonical {
    case string(String)
    case number(Double)
    case array([Canonical])
    case object([String: Canonical])

    static func flag(_ value: Bool) -> Canonical { .string(value ? "true" : "false") }

    /// A number, or `none` where it is not set.
    static func optional(_ value: Double?) -> Canonical { value.map(Canonical.number) ?? .string("none") }

    /// The canonical JSON text: objects' keys in the order of their UTF-8 bytes, written into
    /// one string (a story of 100,000 cues is one text of a few megabytes).
    var text: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case let .string(s): Canonical.quote(s, into: &out)
        case let .number(v): Canonical.quote(v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)", into: &out)
        case let .array(items):
            out += "["
            for (k, item) in items.enumerated() {
                if k > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case let .object(fields):
            out += "{"
            for (k, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if k > 0 { out += "," }
                Canonical.quote(key, into: &out)
                out += ":"
                fields[key]!.write(into: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string: quotes, backslashes and control characters escaped.
    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        // The runs between characters to escape, appended whole (most texts have none).
        let bytes = s.utf8
        var start = bytes.startIndex
        for i in bytes.indices {
            let byte = bytes[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out += s[start..<i]
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            default: out += String(format: "\\u%04x", byte)
            }
            start = bytes.index(after: i)
        }
        out += s[start...]
        out += "\""
    }
}
