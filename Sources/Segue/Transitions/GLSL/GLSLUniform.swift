import Foundation

/// A uniform a GLSL transition file declares, with the default its comment writes, as
/// gl-transitions' files have them: `uniform float amplitude; // = 30.0`,
/// `uniform vec2 direction; // = vec2(1.0, -1.0)` or `uniform vec4 color /* = vec4(0.0) */;`.
public struct GLSLUniform: Sendable, Equatable {
    public let name: String
    /// Its GLSL type: float, int, bool, vec2...vec4, ivec2...ivec4, bvec2...bvec4.
    public let type: String
    /// Its numbers (1 for a scalar), and whether they are whole (int, ivec; bool as 0 or 1).
    public let count: Int
    public let whole: Bool
    public let defaults: [Double]

    static let sizes: [String: (count: Int, whole: Bool)] = [
        "float": (1, false), "int": (1, true), "bool": (1, true),
        "vec2": (2, false), "vec3": (3, false), "vec4": (4, false),
        "ivec2": (2, true), "ivec3": (3, true), "ivec4": (4, true),
        "bvec2": (2, true), "bvec3": (3, true), "bvec4": (4, true),
    ]

    /// `uniform [precision] TYPE NAME` and what follows it on its line.
    private static let declaration = try! NSRegularExpression(
        pattern: #"^\s*uniform\s+(?:(?:lowp|mediump|highp)\s+)?(\w+)\s+(\w+)\s*(/\*\s*=\s*(.*?)\s*\*/)?\s*;(.*)$"#)
    private static let trailing = try! NSRegularExpression(pattern: #"^\s*//\s*=\s*([^;]*)"#)

    /// What a file declares: the uniforms a story may set, and those of types it cannot give
    /// (samplers, matrices).
    struct Declarations: Sendable {
        var uniforms: [GLSLUniform] = []
        var unsupported: [(type: String, name: String)] = []
    }

    /// The uniforms Segue sets itself, left out of a file's declarations.
    static let segues: Set<String> = ["progress", "ratio"]

    /// The uniforms `source` declares, one a line, in order, but Segue's own (`segues`).
    static func declared(in source: String) -> Declarations {
        var uniforms: [GLSLUniform] = [], unsupported: [(type: String, name: String)] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let whole = NSRange(line.startIndex..., in: line)
            guard let m = declaration.firstMatch(in: line, range: whole) else { continue }
            func group(_ i: Int, in text: String, of match: NSTextCheckingResult) -> String? {
                Range(match.range(at: i), in: text).map { String(text[$0]) }
            }
            let type = group(1, in: line, of: m)!, name = group(2, in: line, of: m)!
            if segues.contains(name) { continue }
            guard let size = sizes[type] else { unsupported.append((type, name)); continue }
            var written = group(4, in: line, of: m)
            if written == nil, let rest = group(5, in: line, of: m),
               let t = trailing.firstMatch(in: rest, range: NSRange(rest.startIndex..., in: rest)) {
                written = group(1, in: rest, of: t)
            }
            let numbers = written.flatMap { numbersOf($0, count: size.count) } ?? [Double](repeating: 0, count: size.count)
            uniforms.append(GLSLUniform(name: name, type: type, count: size.count, whole: size.whole, defaults: numbers))
        }
        return Declarations(uniforms: uniforms, unsupported: unsupported)
    }

    /// The numbers of a default as written: `0.5`, `true`, `vec2(1.0, -1.0)`, `ivec2(4)` (one
    /// number fills a vector); nil when it is none of those.
    static func numbersOf(_ text: String, count: Int) -> [Double]? {
        var inner = text.trimmingCharacters(in: .whitespaces)
        if let open = inner.firstIndex(of: "("), inner.hasSuffix(")") {
            inner = String(inner[inner.index(after: open)..<inner.index(before: inner.endIndex)])
        }
        let parts = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let numbers = parts.map { part -> Double? in
            if part == "true" { return 1 }
            if part == "false" { return 0 }
            return Double(part.hasSuffix("f") ? String(part.dropLast()) : part)
        }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else { return nil }
        let values = numbers.map { $0! }
        if values.count == 1 { return [Double](repeating: values[0], count: count) }
        return values.count == count ? values : nil
    }

    /// The parameter a story sets it with: `transition.NAME`.
    var parameter: AnyParameter {
        let meaning = "The file's uniform \(type) \(name)."
        switch (type, count) {
        case ("bool", _): return Parameter.flag(name, default: defaults[0] != 0, meaning).erased
        case (_, 1) where whole: return Parameter.integer(name, default: Int(defaults[0]), in: Int(Int32.min)...Int(Int32.max), meaning).erased
        case (_, 1): return Parameter.number(name, default: defaults[0], in: -1e9...1e9, meaning).erased
        default:
            let count = count
            return Parameter.numbers(name, default: defaults, in: -1e9...1e9, expected: "a list of \(count) numbers, like [\(defaults.map { format($0) }.joined(separator: ", "))]",
                                     meaning) { $0.count == count }.erased
        }
    }

    /// Its value in `values` (or its default) as the numbers GL is given.
    func numbers(in values: ParameterValues) -> [Float] {
        switch values.value(name) {
        case let .number(v)?: return [Float(v)]
        case let .integer(v)?: return [Float(v)]
        case let .flag(v)?: return [v ? 1 : 0]
        case let .numbers(v)?: return v.map(Float.init)
        default: return defaults.map(Float.init)
        }
    }
}
