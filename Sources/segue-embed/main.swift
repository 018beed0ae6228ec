import Foundation

// Writes a Swift source file holding the shipped presets as text and the git commit of the
// package folder (if it is a checkout). Run by the EmbedResources build-tool plugin:
//     segue-embed OUTPUT PACKAGE_FOLDER PRESET.yaml...

/// A Swift string literal of `text`: every character outside printable ASCII escaped, so any
/// file content makes valid source.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case " "..."~": out.unicodeScalars.append(scalar)
        default: out += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return out + "\""
}

/// The commit checked out in `folder`, with "-dirty" when tracked files differ from it; nil
/// outside a git checkout or without git.
func commit(in folder: String) -> String? {
    func git(_ arguments: [String]) -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard let head = git(["rev-parse", "--short=12", "HEAD"]), head.status == 0, !head.output.isEmpty else { return nil }
    let clean = git(["diff", "--quiet", "HEAD", "--", "Sources", "Package.swift", "Presets"])?.status == 0
    return head.output + (clean ? "" : "-dirty")
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: segue-embed OUTPUT PACKAGE_FOLDER PRESET.yaml...\n".utf8))
    exit(2)
}
var source = "// Generated at build time by segue-embed from Presets/*.yaml; do not edit.\n\n"
source += "/// The shipped presets: (name, YAML text), sorted by name.\n"
source += "let embeddedPresets: [(name: String, text: String)] = [\n"
for path in arguments.dropFirst(3) {
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        FileHandle.standardError.write(Data("segue-embed: cannot read \(path) as UTF-8 text\n".utf8))
        exit(1)
    }
    source += "    (\(literal(name)), \(literal(text))),\n"
}
source += "]\n\n"
source += "/// The git commit the build was made from, if it was made in a checkout.\n"
source += "let embeddedCommit: String? = \(commit(in: arguments[2]).map(literal) ?? "nil")\n"
do {
    // Written only when it changes: the same file kept with its time, so that a build whose
    // presets and commit are as they were compiles nothing again (this tool runs whenever
    // SwiftPM links it anew, which it does on builds that change nothing).
    if (try? String(contentsOfFile: arguments[1], encoding: .utf8)) != source {
        try source.write(toFile: arguments[1], atomically: true, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write(Data("segue-embed: cannot write \(arguments[1]): \(error)\n".utf8))
    exit(1)
}
