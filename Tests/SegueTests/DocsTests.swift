import Foundation
import Testing
@testable import Segue

/// The user's pages state facts the code owns: these read both and hold them equal.
@Suite("The docs")
struct DocsTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    static func lines(_ text: String) -> Int { text.split(separator: "\n", omittingEmptySubsequences: false).count - 1 }

    /// Every Markdown page of the project: the README, CONTRIBUTING.md and docs/.
    static let pages: [String] = ["README.md", "CONTRIBUTING.md"]
        + ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path)) ?? [])
        .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    @Test("the README is a user's page of at most 450 lines, docs/performance.md at most 300")
    func lengths() throws {
        let readme = Self.lines(try Self.text("README.md")), performance = Self.lines(try Self.text("docs/performance.md"))
        #expect(readme > 100 && readme <= 450, "README.md has \(readme) lines")
        #expect(performance > 50 && performance <= 300, "docs/performance.md has \(performance) lines")
    }

    /// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }

    @Test("every link between the pages reaches a file, and an anchor a heading of it")
    func links() throws {
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for page in Self.pages {
            let folder = URL(fileURLWithPath: page).deletingLastPathComponent().relativePath
            for match in try Self.text(page).matches(of: link) {
                let target = String(match.output[1].substring!)
                guard !target.hasPrefix("http"), !target.hasPrefix("mailto:") else { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page : (folder == "." ? parts[0] : folder + "/" + parts[0])
                let url = repositoryRoot.appendingPathComponent(file).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: url.path), "\(page) links to \(target), which is not there")
                if parts.count == 2, file.hasSuffix(".md"), let text = try? String(contentsOf: url, encoding: .utf8) {
                    let anchors = Set(text.split(separator: "\n").filter { $0.hasPrefix("#") }
                        .map { Self.anchor($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) })
                    #expect(anchors.contains(parts[1]), "\(page) links to \(target): \(file) has no heading of that anchor")
                }
                checked += 1
            }
        }
        #expect(checked > 40, "\(checked) links")
    }

    /// 33554432 as "33,554,432".
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        return String(digits.enumerated().flatMap { i, d in (i > 0 && (digits.count - i) % 3 == 0 ? [","] : []) + [d] })
    }

    /// 200_000_000_000 as "2 × 10¹¹".
    static func power(_ n: Int) -> String {
        var mantissa = n, exponent = 0
        while mantissa % 10 == 0 { mantissa /= 10; exponent += 1 }
        let superscripts: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
        return "\(mantissa) × 10" + String(String(exponent).map { superscripts[Int(String($0))!] })
    }

    @Test("docs/limits.md and the README state the limits the code enforces")
    func limits() throws {
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let limits = words(try Self.text("docs/limits.md")), readme = words(try Self.text("README.md"))
        let enforced = Limits()
        #expect(PresetLibrary.maxFileSize == Story.maxFileSize)
        let stated = [
            "presets and stories up to \(PresetLibrary.maxFileSize >> 20) MiB",
            "manifests up to \(Manifest.maxFileSize >> 20) MiB",
            "data files up to \(TemplateData.maxFileSize >> 20) MiB",
            "at most \(enforced.maxSide) pixels a side and \(Self.grouped(enforced.maxPixels)) pixels in all",
            "at most \(Self.power(enforced.maxPixelFrames)) frame-pixels",
            "A text holds at most \(Self.grouped(Overlay.maxCharacters)) characters and a word at most \(Self.grouped(Overlay.maxWord))",
            "a canvas at most \(Self.grouped(Canvas.maxPixels)) pixels",
            "GLSL files are at most \(GLSLProgram.maxFileSize >> 10) KiB",
        ]
        for fact in stated {
            #expect(limits.contains(fact), "docs/limits.md does not say \"\(fact)\"")
        }
        for fact in ["\(enforced.maxSide) pixels a side, \(Self.grouped(enforced.maxPixels)) in all", "(\(Self.power(enforced.maxPixelFrames)) frame-pixels)"] {
            #expect(readme.contains(fact), "README.md does not say \"\(fact)\"")
        }
    }

    @Test("the README names the transitions a story's cut may not be: those that build screens of their own")
    func cutKinds() throws {
        let readme = try Self.text("README.md").replacingOccurrences(of: "\n", with: " ")
        let sentence = try #require(readme.range(of: "except those that build screens of their own ("))
        let list = readme[sentence.upperBound...].prefix { $0 != ")" }
        let named = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let whole = Set(TransitionRegistry.all.filter { !$0.joinsTwoPages }.map { $0.name })
        #expect(!whole.isEmpty && named == whole, "README: \(named.sorted()); the registry: \(whole.sorted())")
    }

    @Test("docs/transitions.md has every transition with its summary and each parameter as the code says them (scripts/pictures writes it)")
    func transitionsPage() throws {
        let page = try Self.text("docs/transitions.md")
        for kind in TransitionRegistry.all {
            let start = try #require(page.range(of: "\n## \(kind.name)\n"), "no section for \(kind.name)")
            let rest = page[start.upperBound...]
            let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
            #expect(section.contains("\n\(kind.summary)\n"), "\(kind.name)'s summary is not the code's: \(kind.summary)")
            for field in Preset.parameters(of: kind) {
                let line = "  - `\(field.key)` \(field.type), default \(field.defaultValue); \(field.range.replacingOccurrences(of: "\\|", with: "|")). \(field.meaning)"
                #expect(section.contains(line + "\n"), "\(kind.name): \(line)")
            }
        }
    }

    /// The code block of docs/architecture.md's "Source layout".
    static func layout() throws -> [Substring] {
        let text = try Self.text("docs/architecture.md")
        let section = try #require(text.range(of: "## Source layout"))
        let block = text[section.upperBound...].components(separatedBy: "```")[1]
        return block.split(separator: "\n")
    }

    @Test("docs/architecture.md's source layout names every folder and C file there is, and nothing that is not")
    func sourceLayout() throws {
        let lines = try Self.layout()
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let fm = FileManager.default
        // Every folder of Sources/ is on a line of its own, or with its siblings (the system libraries).
        for folder in try fm.contentsOfDirectory(atPath: sources.path).sorted() {
            #expect(lines.contains { $0.contains("\(folder)/") && ($0.hasPrefix("Sources/") || $0.contains(" \(folder)/")) },
                    "Sources/\(folder)/ is not in the layout")
        }
        // The library's rooms, in the order HouseRulesTests holds them to.
        let rooms = lines.compactMap { line -> String? in
            guard line.hasPrefix("  "), let name = line.dropFirst(2).split(separator: " ").first, name.hasSuffix("/") else { return nil }
            let room = String(name.dropLast())
            return fm.fileExists(atPath: sources.appendingPathComponent("Segue/\(room)").path) ? room : nil
        }
        #expect(rooms == HouseRulesTests.rooms, "the layout's rooms: \(rooms)")
        // Each C file of the C layer under its folder's line; each kernel in the kernels' paragraph.
        func paragraph(from start: (Substring) -> Bool) -> String {
            guard let first = lines.firstIndex(where: start) else { return "" }
            let rest = lines[(first + 1)...].prefix { $0.hasPrefix("                        ") }
            return ([lines[first]] + rest).joined(separator: " ")
        }
        var named = 0
        for target in ["CSegueAV", "CSegueKernels"] {
            let root = sources.appendingPathComponent(target).path
            let files = (fm.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".c") || $0.hasSuffix(".h") && !$0.hasPrefix("include/") }
            for file in files.sorted() {
                let parts = file.split(separator: "/")
                let name = String(parts.last!)
                let text = parts.count == 2 && name != "internal.h" ? paragraph { $0.hasPrefix("  \(parts[0])/ ") } : paragraph { $0.hasPrefix("Sources/\(target)/") }
                #expect(text.contains(name), "Sources/\(target)/\(file) is not named in the layout")
                named += 1
            }
        }
        // And every file the layout names is there.
        let everything = fm.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for line in lines {
            for word in line.split(whereSeparator: { " ,();:".contains($0) }) where word.hasSuffix(".c") || word.hasSuffix(".h") {
                #expect(everything.contains { $0.hasSuffix("/" + word) }, "the layout names \(word), which is not in Sources/")
            }
        }
        #expect(named > 30, "\(named) C files")
    }
}
