import ArgumentParser
import Foundation
import Segue

/// Where presets named on the command line are looked up, for every command that names one.
struct LibraryOptions: ParsableArguments {
    @Option(name: .customLong("presets"), help: ArgumentHelp("A folder of NAME.yaml presets, searched before SEGUE_PRESETS and the built-in presets; repeatable.", valueName: "DIR"))
    var folders: [String] = []

    @OptionGroup var glTransitions: GLTransitionsOption

    /// The library these options and the environment describe.
    func library() throws -> PresetLibrary {
        try glTransitions.apply()
        return try PresetLibrary.standard(presetFolders: folders)
    }
}

/// Where gl-transitions' own files are found, for every command that names a transition.
struct GLTransitionsOption: ParsableArguments {
    @Option(name: .customLong("gl-transitions"), help: ArgumentHelp("A folder of gl-transitions' GLSL files (a checkout of the catalogue's transitions/): gl:NAME runs NAME.glsl from it where Segue has no port of that name, as SEGUE_GL_TRANSITIONS does.", valueName: "DIR"))
    var folder: String?

    /// Makes the folder the one `gl:` names are looked up in (SEGUE_GL_TRANSITIONS).
    func apply() throws {
        guard let folder else { return }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw PresetError.unreadable(folder, reason: "no such folder (named by --gl-transitions)")
        }
        setenv("SEGUE_GL_TRANSITIONS", folder, 1)
    }
}

struct Presets: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lists the presets Segue finds, or shows one resolved.",
        discussion: """
            Presets are found by name in the folders given with --presets, then in those of \
            SEGUE_PRESETS (separated by ':'), then among the presets built into segue; the \
            first wins, so a preset of your own may replace a built-in one of the same name.
            """,
        subcommands: [List.self, Show.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the presets found, with where each comes from and what it makes.")

        @OptionGroup var library: LibraryOptions

        func run() throws {
            let catalog = try library.library().catalog()
            guard !catalog.isEmpty else {
                throw PresetError.presetNotFound("(any)", searched: library.folders, available: [])
            }
            let rows = catalog.map { item -> [String] in
                let hides = item.entry.hides.isEmpty ? "" : " (replaces " + item.entry.hides.map(\.description).joined(separator: ", ") + ")"
                return [item.entry.name, item.entry.source.description + hides, item.description]
            }
            printColumns(rows)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints a preset as YAML with every key in effect: what it extends merged in, defaults filled.")

        @Argument(help: ArgumentHelp("A preset's name or a preset file's path.", valueName: "NAME"), completion: .presets)
        var preset: String

        @Option(name: .customLong("set"), help: ArgumentHelp("Overrides a key by its dotted path before showing; repeatable.", valueName: "KEY=VALUE"))
        var overrides: [String] = []

        @Option(name: .customLong("var"), help: ArgumentHelp("A value for one of the preset's {{variables}}, over its default in vars:; repeatable.", valueName: "NAME=VALUE"))
        var vars: [String] = []

        @OptionGroup var library: LibraryOptions

        func run() throws {
            let values = try RenderInputs.values(of: vars)
            print(try Preset.resolvedYAML(Preset.resolvedNode(preset, overrides: PresetPatch(overrides: overrides), vars: values, library: library.library())), terminator: "")
        }
    }
}

/// Prints rows of cells as columns two spaces apart, every column but the last padded to its
/// widest cell.
func printColumns(_ rows: [[String]]) {
    guard let count = rows.first?.count else { return }
    let widths = (0..<count - 1).map { c in rows.map { $0[c].count }.max()! }
    for row in rows {
        print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) + "  " }.joined() + row[count - 1])
    }
}

extension CompletionKind {
    /// The presets found where the shell completes (built-in ones, and those of SEGUE_PRESETS),
    /// and preset files.
    static var presets: CompletionKind {
        .custom { _, _, _ in (try? PresetLibrary.standard().names) ?? [] }
    }

    /// Every transition's name, as `segue transitions` lists them.
    static var transitions: CompletionKind { .list(TransitionRegistry.names) }
}
