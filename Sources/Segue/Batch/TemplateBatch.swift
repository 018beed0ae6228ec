import Foundation

/// Rows of values for a story template: a CSV file (its header row names the variables;
/// quoted fields may hold commas and newlines; UTF-8 with or without a byte order mark) or
/// JSON Lines (`.jsonl`: one object per line, its values as text).
public struct TemplateData: Sendable {
    public struct Row: Sendable {
        /// The row's first line in the file (the header is line 1).
        public var line: Int
        public var values: [String: String]
    }

    public var path: String
    /// The column names, in the file's order (JSON Lines: every key any row has, as first seen).
    public var columns: [String]
    public var rows: [Row]

    /// The largest data file read, in bytes.
    public static let maxFileSize = 256 << 20

    public static func load(_ path: String) throws -> TemplateData {
        var text = try Paths.text(of: path, limit: maxFileSize, kind: "data file")
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return path.lowercased().hasSuffix(".jsonl") || path.lowercased().hasSuffix(".ndjson")
            ? try jsonLines(text, path: path) : try csv(text, path: path)
    }

    static func csv(_ text: String, path: String) throws -> TemplateData {
        var text = text
        return try text.withUTF8 { bytes in
            var reader = CSVRecords(bytes: bytes, path: path)
            defer { WorkCounts.add(.bytesScanned, reader.position) }
            guard let header = try reader.next(), header.fields.contains(where: { !$0.isEmpty }) else {
                throw PresetError.unreadable(path, reason: "no header row (expected the variables' names on line 1)")
            }
            let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
            var seen: Set<String> = []
            for name in columns {
                guard !name.isEmpty else { throw PresetError.invalid(key: "(header)", origin: .file(path, line: 1), value: "an empty column name", expected: "a name for every column") }
                guard seen.insert(name).inserted else { throw PresetError.invalid(key: "(header)", origin: .file(path, line: 1), value: "'\(name)' twice", expected: "each column once") }
            }
            var rows: [Row] = []
            while let record = try reader.next() {
                if record.fields.count == 1, record.fields[0].isEmpty { continue }      // a blank line
                guard record.fields.count == columns.count else {
                    throw PresetError.invalid(key: "(row)", origin: .file(path, line: record.line), value: "\(record.fields.count) fields",
                                              expected: "\(columns.count), one for each column of the header (a field with a comma is quoted: \"a, b\")")
                }
                var values: [String: String] = [:]
                values.reserveCapacity(columns.count)
                for (name, field) in zip(columns, record.fields) { values[name] = field }
                rows.append(Row(line: record.line, values: values))
            }
            return TemplateData(path: path, columns: columns, rows: rows)
        }
    }

    static func jsonLines(_ text: String, path: String) throws -> TemplateData {
        var text = text
        return try text.withUTF8 { bytes in
            var columns: [String] = [], known: Set<String> = [], rows: [Row] = []
            var start = 0, line = 1
            defer { WorkCounts.add(.bytesScanned, min(start, bytes.count)) }
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                var object = FlatJSON(bytes: UnsafeBufferPointer(rebasing: bytes[start..<end]), path: path, line: line)
                if let pairs = try object.parse() {
                    var values: [String: String?] = [:]
                    for (key, value) in pairs {
                        if known.insert(key).inserted { columns.append(key) }
                        values[key] = value
                    }
                    rows.append(Row(line: line, values: values.compactMapValues { $0 }))
                }
                start = end + 1
                line += 1
            }
            return TemplateData(path: path, columns: columns, rows: rows)
        }
    }
}

/// A template's row as a plan's entry keeps it until the entry is planned: the row's values
/// and the template they fill, which every row shares.
public struct TemplateRow: Sendable {
    let template: Shared<StoryTemplate>
    /// The row's values, as the data file gives them (the defaults are laid under them when
    /// the story is made).
    public let values: [String: String]
    /// The row's `id`, for its problems.
    public var id: String? { values["id"].flatMap { $0.isEmpty ? nil : $0 } }

    /// The row's story, its defaults under the row's values. Reading it checks its files.
    func story() throws -> Story { try template.value.storyUnchecked(template.value.resolved(values)) }
}

extension Manifest {
    /// One job per row of `data`: `template` with the row's values, written to `output` with
    /// the row's values in its `{{variables}}` (relative to the working folder). Each row's
    /// problems are its entry's, naming the data file's line, the row's `id` when it has one,
    /// and the column: a variable without a value, an output that leaves the output's folder,
    /// or that another row writes, a story that cannot be read. The warnings name columns
    /// nothing uses.
    public static func rows(of template: StoryTemplate, data: consuming TemplateData, output: String, format: OutputFormat? = nil) -> (manifest: Manifest, warnings: [String]) {
        let outputNames = StoryTemplate.names(in: output)
        var warnings: [String] = []
        for column in data.columns where template.used[column] == nil && !outputNames.contains(column) {
            warnings.append("\(data.path): column '\(column)' is used by neither \(template.path) nor the output name")
        }
        let folder = Manifest.outputFolder(of: output)
        let shared = Shared(template)
        var entries: [Entry] = []
        entries.reserveCapacity(data.rows.count)
        // Each row's values move into its entry: the rows are not held twice.
        var rows = data.rows
        data.rows = []
        // The pictures rows share (a logo, a background) are held once, not once a row.
        var paths = Set<String>()
        for index in rows.indices {
            WorkCounts.add(.entriesPlanned)
            let row = TemplateRow(template: shared, values: rows[index].values)
            rows[index].values = [:]
            let origin = ConfigOrigin.file(data.path, line: rows[index].line)
            let id = row.id
            var problems: [String] = []
            let where_ = rowLabel(origin, number: index + 1, id: id)
            for name in template.missing(row.values) {
                let why = data.columns.contains(name) ? "is empty" : "is missing"
                problems.append("\(where_): column '\(name)' \(why), and \(template.path) gives {{\(name)}} no default (\(template.used[name]!))")
            }
            let values = template.resolved(row.values)
            for name in outputNames.sorted() where (values[name] ?? "").isEmpty {
                problems.append("\(where_): column '\(name)' is \(data.columns.contains(name) ? "empty" : "missing"); the output name '\(output)' needs it")
            }
            var path = ""
            var story: Story?
            do {
                path = try StoryTemplate.render(output, values, origin: .option("-o \(output)"))
                if let escape = Manifest.escape(path, from: folder) {
                    problems.append("\(where_): the output '\(path)' \(escape) (expected a path inside '\(folder.isEmpty ? "." : folder)')")
                }
                // Reading the story checks its files (a missing picture is said with the row's
                // line); the entry keeps only the row's values, and its plan reads it again.
                story = try row.story()
            } catch {
                problems.append("\(where_): \(error)")
            }
            let name = id ?? (path.isEmpty ? "row \(index + 1)" : (path as NSString).lastPathComponent)
            entries.append(Entry(number: index + 1, name: name, preset: story?.preset ?? PresetLibrary.defaultPreset, settings: [],
                                 inputs: story?.slides.map { paths.insert($0.image).memberAfterInsert } ?? [], output: path, format: format,
                                 origin: origin, row: row, problems: problems))
        }
        checkOutputs(&entries)
        return (Manifest(path: data.path, entries: entries), warnings)
    }

    /// How a row's problems begin: "rows.csv:12 (row 11, id r11)".
    static func rowLabel(_ origin: ConfigOrigin, number: Int, id: String?) -> String {
        "\(origin) (row \(number)\(id.map { ", id \($0)" } ?? ""))"
    }

    /// The folder an output pattern writes in: its path up to the last `/` before the first `{{`.
    static func outputFolder(of pattern: String) -> String {
        let fixed = pattern.range(of: "{{").map { String(pattern[..<$0.lowerBound]) } ?? pattern
        guard let slash = fixed.lastIndex(of: "/") else { return "" }
        return String(fixed[..<slash])
    }

    /// Why `path` is not inside `folder` ("" for the working folder), or nil when it is.
    static func escape(_ path: String, from folder: String) -> String? {
        if path.isEmpty || path.hasSuffix("/") { return "is no file name" }
        if path.contains("\0") { return "holds a NUL character" }
        let normal = Paths.normalized(path)
        if folder.isEmpty {
            if path.hasPrefix("/") { return "is an absolute path" }
            if normal == ".." || normal.hasPrefix("../") { return "leaves the working folder" }
            return nil
        }
        let base = Paths.normalized(folder)
        if path.hasPrefix("/") != folder.hasPrefix("/") { return "is an absolute path" }
        return normal.hasPrefix(base == "/" ? "/" : base + "/") ? nil : "leaves the output folder"
    }
}
