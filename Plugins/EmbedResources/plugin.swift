import Foundation
import PackagePlugin

/// Generates, at build time, the Swift source that carries the shipped presets
/// (`Presets/*.yaml`, the one place they are written) and the git commit the build was made
/// from, so the `segue` executable needs no file beside it.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let presets = package.appending(path: "Presets")
        let files = try FileManager.default.contentsOfDirectory(at: presets, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "yaml" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        // The commit changes the files git keeps under .git: HEAD, and the branch it names.
        var gitInputs: [URL] = []
        let head = package.appending(path: ".git/HEAD")
        if let text = try? String(contentsOf: head, encoding: .utf8) {
            gitInputs.append(head)
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix("ref: ") {
                let ref = package.appending(path: ".git/" + trimmed.dropFirst(5))
                if FileManager.default.fileExists(atPath: ref.path) { gitInputs.append(ref) }
                let packed = package.appending(path: ".git/packed-refs")
                if FileManager.default.fileExists(atPath: packed.path) { gitInputs.append(packed) }
            }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedResources.swift")
        return [.buildCommand(
            displayName: "Embedding \(files.count) presets and the build's commit",
            executable: try context.tool(named: "segue-embed").url,
            arguments: [output.path, package.path] + files.map(\.path),
            inputFiles: files + gitInputs,
            outputFiles: [output]
        )]
    }
}
