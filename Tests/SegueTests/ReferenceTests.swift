import Foundation
import Testing
@testable import Segue

@Suite("The preset reference")
struct ReferenceTests {
    @Test("docs/presets.md is generated from the schema and is current (SEGUE_UPDATE_GOLDEN=1 rewrites it)")
    func current() throws {
        let url = repositoryRoot.appendingPathComponent("docs/presets.md")
        let text = Preset.referenceMarkdown()
        if ProcessInfo.processInfo.environment["SEGUE_UPDATE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == text)
    }

    @Test("the schema names every key the shipped presets use, and each transition's parameters")
    func coversPresets() throws {
        let folder = repositoryRoot.appendingPathComponent("Presets")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".yaml") {
            let node = try ConfigNode.parse(yaml: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8), name: file)
            let preset = try Preset(node)
            let keys = Set(Preset.schema(for: preset.transition.kind).map(\.key))
            func leaves(_ n: ConfigNode, _ path: String) -> [String] {
                if case let .mapping(pairs) = n.value {
                    return pairs.flatMap { leaves($0.value, path.isEmpty ? $0.key : "\(path).\($0.key)") }
                }
                return [path]
            }
            for key in leaves(node, "") { #expect(keys.contains(key), "\(file): \(key)") }
        }
        #expect(Preset.schema(for: "stories-cube").contains { $0.key == "transition.perspective" && $0.defaultValue == "1000" })
        #expect(Preset.schema(for: "shared-zoom").contains { $0.key == "transition.cornerRadius" && $0.defaultValue == "39" })
    }
}
