import Foundation

// The readers of a template's rows, each one pass over the file's bytes (TemplateData.load
// calls them): CSV as RFC 4180 writes it, and one line of JSON Lines as a flat object.

/// The records of a CSV file (RFC 4180) in one pass over its bytes: fields separated by
/// commas, records by LF or CRLF; a field that starts with a quote runs to the quote that
/// ends it, commas and newlines inside it, `""` for a quote. Each record knows the line it
/// starts on.
struct CSVRecords {
    let bytes: UnsafeBufferPointer<UInt8>
    let path: String
    /// The first byte not read yet.
    private(set) var position = 0
    private var line = 1

    init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
        self.bytes = bytes
        self.path = path
    }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline = UInt8(ascii: "\n"), ret = UInt8(ascii: "\r")

    /// The next record and its first line, or nil at the end of the file.
    mutating func next() throws -> (line: Int, fields: [String])? {
        guard position < bytes.count else { return nil }
        let first = line
        var fields: [String] = []
        while true {
            var field = ""
            if position < bytes.count, bytes[position] == Self.quote {
                let opened = line
                position += 1
                var piece = position, text: [UInt8] = []
                while true {
                    guard position < bytes.count else {
                        throw PresetError.invalid(key: "(row)", origin: .file(path, line: opened), value: "a quoted field never closed",
                                                  expected: "a closing quote (a quote inside a field is written twice: \"\")")
                    }
                    let byte = bytes[position]
                    if byte == Self.newline { line += 1 }
                    if byte != Self.quote { position += 1; continue }
                    text.append(contentsOf: bytes[piece..<position])
                    if position + 1 < bytes.count, bytes[position + 1] == Self.quote {
                        text.append(Self.quote)
                        position += 2
                        piece = position
                        continue
                    }
                    position += 1
                    break
                }
                field = String(decoding: text, as: UTF8.self)
                if position < bytes.count, bytes[position] != Self.comma, bytes[position] != Self.newline,
                   !(bytes[position] == Self.ret && (position + 1 == bytes.count || bytes[position + 1] == Self.newline)) {
                    let after = String(decoding: bytes[position..<min(bytes.count, position + 12)], as: UTF8.self)
                    throw PresetError.invalid(key: "(row)", origin: .file(path, line: line), value: "'\(after)' after a quoted field",
                                              expected: "a comma or the end of the line after a field's closing quote")
                }
            } else {
                let start = position
                while position < bytes.count, bytes[position] != Self.comma, bytes[position] != Self.newline { position += 1 }
                var end = position
                if end > start, bytes[end - 1] == Self.ret, end == bytes.count || bytes[end] == Self.newline { end -= 1 }
                field = String(decoding: bytes[start..<end], as: UTF8.self)
            }
            fields.append(field)
            if position < bytes.count, bytes[position] == Self.ret { position += 1 }
            if position >= bytes.count { return (first, fields) }
            let separator = bytes[position]
            position += 1
            if separator == Self.newline {
                line += 1
                return (first, fields)
            }
        }
    }
}

/// One line of JSON Lines: an object whose values are text, numbers, true or false (their
/// text), or null (no value), read in one pass over its bytes. A blank line is no object.
struct FlatJSON {
    let bytes: UnsafeBufferPointer<UInt8>
    let path: String
    let line: Int
    private var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, path: String, line: Int) {
        self.bytes = bytes
        self.path = path
        self.line = line
    }

    /// The object's keys and values in the line's order (nil for null), or nil for a blank line.
    mutating func parse() throws -> [(key: String, value: String?)]? {
        skipSpace()
        guard position < bytes.count else { return nil }
        guard take(UInt8(ascii: "{")) else { throw notAnObject() }
        var pairs: [(key: String, value: String?)] = []
        skipSpace()
        if !take(UInt8(ascii: "}")) {
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw notAnObject() }
                let key = try string()
                skipSpace()
                guard take(UInt8(ascii: ":")) else { throw notAnObject() }
                skipSpace()
                pairs.append((key, try value(of: key)))
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { throw notAnObject() }
                break
            }
        }
        skipSpace()
        guard position == bytes.count else { throw notAnObject() }
        return pairs
    }

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A { position += 1 }
    }

    private func notAnObject() -> PresetError {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return PresetError.invalid(key: "(row)", origin: .file(path, line: line), value: "'\(text.prefix(40))'", expected: "a JSON object on one line, {\"name\": \"Ana\", ...}")
    }

    /// The value of `key`: its text, or nil for null.
    private mutating func value(of key: String) throws -> String? {
        switch peek {
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): return try word("true")
        case UInt8(ascii: "f"): return try word("false")
        case UInt8(ascii: "n"): _ = try word("null"); return nil
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            throw PresetError.invalid(key: key, origin: .file(path, line: line), value: "a list or an object", expected: "text, a number or true/false")
        default: return try number(of: key)
        }
    }

    private mutating func word(_ word: StaticString) throws -> String {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0 else { throw notAnObject() }
        position += count
        return word.description
    }

    /// A number as JSON writes it, as its text: a whole number as itself, any other as the
    /// shortest decimal that reads back as the same double.
    private mutating func number(of key: String) throws -> String {
        let start = position
        func digits() -> Int {
            let from = position
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        _ = take(UInt8(ascii: "-"))
        let whole = position
        guard digits() > 0, bytes[whole] != UInt8(ascii: "0") || position - whole == 1 else { throw notAnObject() }
        var integral = true
        if take(UInt8(ascii: ".")) {
            integral = false
            guard digits() > 0 else { throw notAnObject() }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            integral = false
            _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
            guard digits() > 0 else { throw notAnObject() }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral, let whole = Int64(text) { return "\(whole)" }
        guard let double = Double(text), double.isFinite else {
            throw PresetError.invalid(key: key, origin: .file(path, line: line), value: "\(text.prefix(40))", expected: "a number a double holds (at most about 1.8e308)")
        }
        return double == double.rounded() && abs(double) < 1e15 ? "\(Int64(double))" : "\(double)"
    }

    /// A string, its escapes decoded.
    private mutating func string() throws -> String {
        position += 1                                       // the opening quote
        var text: [UInt8] = []
        var piece = position
        while true {
            guard let byte = peek else { throw notAnObject() }
            if byte == UInt8(ascii: "\"") {
                text.append(contentsOf: bytes[piece..<position])
                position += 1
                return String(decoding: text, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw notAnObject() }
            guard byte == UInt8(ascii: "\\") else { position += 1; continue }
            text.append(contentsOf: bytes[piece..<position])
            position += 1
            guard let escaped = peek else { throw notAnObject() }
            position += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A pair of UTF-16 surrogates: \uD83D\uDE00.
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else { throw notAnObject() }
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw notAnObject() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw notAnObject() }
                text.append(contentsOf: String(Character(unicode)).utf8)
            default: throw notAnObject()
            }
            piece = position
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
            throw notAnObject()
        }
        position += 4
        return value
    }
}
