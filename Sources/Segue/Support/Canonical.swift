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
    /// one buffer of bytes (a story of 100,000 cues is one text of a few megabytes).
    var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case let .string(s): Canonical.quote(s, into: &out)
        case let .number(v): Canonical.quote(v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)", into: &out)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(fields):
            out.append(UInt8(ascii: "{"))
            for (k, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                Canonical.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                fields[key]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string: quotes, backslashes and control characters escaped.
    private static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case ..<0x20:
                out += Array(String(format: "\\u%04x", byte).utf8)
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
