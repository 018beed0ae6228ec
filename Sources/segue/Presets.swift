import ArgumentParser
import Foundation
import Segue

struct Presets: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lists the shipped presets, or shows one resolved.",
        subcommands: [List.self, Show.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the shipped presets with a one-line description.")

        func run() throws {
            let catalog = PresetLibrary.standard.catalog()
            let width = catalog.map(\.name.count).max() ?? 0
            for entry in catalog {
                print(entry.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + entry.description)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints a preset as YAML with every key in effect: what it extends merged in, defaults filled.")

        @Argument(help: ArgumentHelp("A shipped preset's name or a preset file's path.", valueName: "NAME"))
        var preset: String

        @Option(name: .customLong("set"), help: ArgumentHelp("Overrides a key by its dotted path before showing; repeatable.", valueName: "KEY=VALUE"))
        var overrides: [String] = []

        func run() throws {
            print(try Preset.resolvedYAML(Preset.resolvedNode(preset, overrides: overrides)), terminator: "")
        }
    }
}
