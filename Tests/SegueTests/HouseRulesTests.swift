import Foundation
import Testing

/// The rules of the house that no compiler checks, read off the sources themselves.
@Suite struct HouseRulesTests {
    /// Every Swift file of the library and the command line, by path from the repository's root.
    static let sources: [(path: String, text: String)] = {
        let root = repositoryRoot.appendingPathComponent("Sources").path
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return files.sorted().compactMap { file in
            (try? String(contentsOfFile: root + "/" + file, encoding: .utf8)).map { ("Sources/" + file, $0) }
        }
    }()

    /// The code of a file without its comments, so that a rule is not met or broken by prose.
    static func code(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let comment = line.range(of: "//") else { return line }
            return line[..<comment.lowerBound]
        }.joined(separator: "\n")
    }

    @Test("every @unchecked Sendable type is named, with its reason, in the inventory of Support/Concurrency.swift")
    func uncheckedSendableInventory() throws {
        let inventory = try #require(Self.sources.first { $0.path.hasSuffix("Support/Concurrency.swift") }).text
        let declaration = try Regex(#"(?:class|struct|enum)\s+([A-Za-z_][A-Za-z0-9_]*)(?:<[^>]*>)?\s*:\s*@unchecked\s+Sendable"#)
        var found: [String] = []
        for (path, text) in Self.sources {
            for match in Self.code(text).matches(of: declaration) {
                let name = String(match.output[1].substring!)
                found.append(name)
                #expect(inventory.contains("`\(name)`"), "\(path): \(name) is @unchecked Sendable but not in the inventory of Support/Concurrency.swift")
            }
        }
        // The test would pass over nothing if the pattern stopped matching.
        #expect(found.count >= 10 && found.contains("Locked") && found.contains("ClipPicture"), "\(found)")
    }

    @Test("threads are started in Support/Threads.swift only")
    func threadsStartInOnePlace() {
        let starts = ["Thread {", "Thread(", "detachNewThread", "pthread_create"]
        for (path, text) in Self.sources where !path.hasSuffix("Support/Threads.swift") {
            for start in starts {
                #expect(!Self.code(text).contains(start), "\(path) starts a thread (\(start)); start it through Threads.start")
            }
        }
    }

    @Test("the fingerprint is made from the canonical encoding only, never from a Swift description")
    func fingerprintIsCanonical() throws {
        let writers = Self.sources.filter { Self.code($0.text).contains("Canonical") }
        #expect(writers.contains { $0.path.hasSuffix("/Fingerprint.swift") } && writers.contains { $0.path.contains("/Overlays/") }, "\(writers.map(\.path))")
        for (path, text) in writers {
            #expect(!Self.code(text).contains("String(reflecting"), "\(path)")
            #expect(!Self.code(text).contains("String(describing"), "\(path)")
        }
    }

    @Test("a Job is made once from its request: no settable stored property, and every job outside Export/ made by Job(request) or from another")
    func jobIsResolvedOnce() throws {
        let file = try #require(Self.sources.first { $0.path.hasSuffix("Export/Job.swift") }).text
        let body = try #require(file.range(of: "public struct Job: Sendable {"))
        // The struct's own members are indented four spaces; a stored `var` has no body.
        let members = Self.code(String(file[body.upperBound...])).split(separator: "\n").prefix { $0 != "}" }
        let stored = try Regex(#"^    (?:public |private |fileprivate |internal )?(?:private\(set\) )?(?:static )?var [A-Za-z_]+[^{]*$"#)
        let settable = members.filter { (try? stored.wholeMatch(in: String($0))) != nil && !$0.contains("static") }
        #expect(settable.isEmpty, "settable stored properties of Job: \(settable)")
        #expect(members.contains { $0.contains("public let request: JobRequest") })
        // Outside the export room a job is made from a request, or edited from a job.
        let made = try Regex(#"\bJob\(([^)]*)"#)
        var calls = 0
        for (path, text) in Self.sources where !path.contains("Segue/Export/") {
            for match in Self.code(text).matches(of: made) {
                let argument = String(match.output[1].substring!)
                calls += 1
                #expect(!argument.contains(":"), "\(path): Job(\(argument)...) makes a job otherwise than from its request")
            }
        }
        #expect(calls >= 3, "the CLI, the batch and the preview each make jobs: \(calls) found")
    }

    @Test("overlay kinds are told apart in their descriptors only (Story/Overlays), as outputs are in theirs")
    func overlayKindsInOneTable() throws {
        let tellsApart = ["sticker == nil", "sticker != nil", ".sticker.map", ".sticker.flatMap", "= overlay.sticker", "switch overlay.content"]
        var checked = 0
        for (path, text) in Self.sources where !path.contains("Story/Overlays/") && !path.hasSuffix("Model/Overlay.swift") {
            let code = Self.code(text)
            guard code.contains("Overlay") else { continue }
            checked += 1
            for pattern in tellsApart where code.contains(pattern) {
                Issue.record("\(path) tells overlay kinds apart (\(pattern)); say it in the kind's descriptor (OverlayKind)")
            }
        }
        #expect(checked >= 8, "\(checked) files that name overlays")
    }

    @Test("no Swift file over 450 lines and no C file over 600 without a reason at its top")
    func fileSizes() throws {
        let root = repositoryRoot.appendingPathComponent("Sources").path
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") || file.hasSuffix(".c") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            let limit = file.hasSuffix(".c") ? 600 : 450
            // The OpenAPI generator's output (Sources/SegueServe/Generated/) is checked by
            // regenerating it (ServeTests), not read as code written by hand.
            let reason = text.split(separator: "\n").prefix(12).contains { $0.contains("Longer than") }
            #expect(lines <= limit || reason, "Sources/\(file) has \(lines) lines, over \(limit), with no 'Longer than ...' reason at its top")
        }
    }

    /// The library's rooms, from the bottom up: each uses only the rooms before it.
    static let rooms = ["Support", "Geometry", "Timing", "Config", "Model", "Transitions", "Media", "Render", "Presets",
                        "Story", "Export", "Batch", "Cluster"]

    @Test("no room of the library names a type of a room above it (docs/architecture.md, Source layout)")
    func roomsPointOneWay() throws {
        let library = Self.sources.filter { $0.path.hasPrefix("Sources/Segue/") }
        func room(_ path: String) -> String { String(path.dropFirst("Sources/Segue/".count).split(separator: "/")[0]) }
        // Every type, by the rooms that declare it: at the top level, nested in another or in an
        // extension (`extension Preset { struct GIFSettings }` belongs to the room of its file).
        let declaration = try Regex(#"^\s*(?:@[A-Za-z]+\s+)*(?:(?:public|final|private|fileprivate|internal|indirect)\s+)*(?:struct|enum|class|protocol|typealias|actor)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        // A generic parameter (`Promise<Value: Sendable>`) is its file's own name too.
        let generic = try Regex(#"(?:struct|class|enum|actor|func|typealias|init)\s*[A-Za-z_0-9]*\s*<\s*([A-Z][A-Za-z0-9_]*)\s*[:>,]"#)
        var owners: [String: Set<String>] = [:]
        var nested = 0
        for (path, text) in library {
            #expect(Self.rooms.contains(room(path)), "\(path) is in no room of the list")
            for match in Self.code(text).matches(of: generic) { owners[String(match.output[1].substring!), default: []].insert(room(path)) }
            for line in Self.code(text).split(separator: "\n") {
                guard let match = line.firstMatch(of: declaration) else { continue }
                owners[String(match.output[1].substring!), default: []].insert(room(path))
                if line.first == " " { nested += 1 }
            }
        }
        #expect(owners.count > 100 && owners["Job"] == ["Export"] && owners["Layer"] == ["Model"] && nested > 50, "\(owners.count) types, \(nested) nested")
        #expect(owners["GIFSettings"] != nil, "a type nested in an extension is read")
        let literal = try Regex(#""(?:[^"\\]|\\.)*""#)
        for (path, text) in library {
            let here = Self.rooms.firstIndex(of: room(path)) ?? 0
            let code = Self.code(text).replacing(literal, with: "\"\"")
            let names = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for name in names.sorted() {
                // A name some room at or below this one declares is that room's (nested names repeat: `Kind`).
                guard let rooms = owners[name], rooms.allSatisfy({ (Self.rooms.firstIndex(of: $0) ?? 0) > here }) else { continue }
                Issue.record("\(path) (\(room(path))) names \(name), a type of \(rooms.sorted().joined(separator: ", ")), a room above it")
            }
        }
    }
}
