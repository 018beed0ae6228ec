import ArgumentParser
import Foundation
import Segue

struct Transitions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lists every transition (name, family, source), or shows one with its parameters.",
        discussion: """
            A transition's name is its preset's transition.kind (or a story's cut); its \
            parameters are the transition.* keys a preset, a cut or --set gives it.
            """,
        subcommands: [List.self, Show.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists every transition, one a line: name, family, source and parameters with their defaults; then the other names: FFmpeg xfade's, which set a transition's parameter, and the gl-transitions ports' file names alone.")

        func run() throws {
            func parameters(_ kind: any Transition.Type) -> String {
                Preset.parameters(of: kind).map { "\($0.key)=\($0.defaultValue)" }.joined(separator: " ")
            }
            printColumns(TransitionRegistry.all.map { [$0.name, $0.family.rawValue, $0.source, parameters($0)] }
                         + TransitionRegistry.aliases.map { alias in
                             [alias.name, alias.kind.family.rawValue, "= \(alias.kind.name) \(alias.settings)", ""]
                         })
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints one transition: what it draws, its family and source, and each parameter with its type, default, accepted values and meaning.")

        @Argument(help: ArgumentHelp("A transition's name, as 'segue transitions' lists it, or a gl-transitions file's (gl:NAME) with --gl-transitions.", valueName: "NAME"),
                  completion: .transitions)
        var name: String

        @OptionGroup var glTransitions: GLTransitionsOption

        func run() throws {
            try glTransitions.apply()
            for line in try Transitions.description(of: name) { print(line) }
        }
    }
}

extension Transitions {
    /// What `segue transitions show NAME` prints (and `segue mcp`'s describe_transition says).
    static func description(of name: String) throws -> [String] {
        var lines: [String] = []
        let kind = try Preset.transition(named: name)
        let spelt = TransitionRegistry.canonical(name) ?? name
        // A gl-transitions file Segue has no port of: its uniforms are its parameters.
        let catalogue = TransitionRegistry.named(name) == nil ? GLSLTransition.catalogueFile(name) : nil
        if let alias = TransitionRegistry.aliases.first(where: { $0.name == spelt }) {
            lines.append("\(spelt) is \(kind.name)" + (alias.settings.isEmpty ? "" : " with \(alias.settings)"))
        }
        if let catalogue {
            lines.append("\(name): gl-transitions' own file \(catalogue), run by Mesa's llvmpipe (\(kind.name): \(kind.summary))")
        } else {
            lines.append("\(kind.name): \(kind.summary)")
        }
        lines.append("family: \(kind.family.rawValue)")
        lines.append("source: \(kind.source)")
        lines.append("joins two pages (a story's cut): \(kind.joinsTwoPages ? "yes" : "no, it builds screens of its own")")
        let fields = catalogue == nil ? Preset.parameters(of: kind) : Preset.parameters(named: name)
        guard !fields.isEmpty else { return lines + ["parameters: none of its own"] }
        lines.append("parameters:")
        let keys = fields.map(\.key).map { $0.count }.max()!
        for field in fields {
            lines.append("  " + field.key.padding(toLength: keys, withPad: " ", startingAt: 0)
                         + "  \(field.type), default \(field.defaultValue); \(field.range.replacingOccurrences(of: "\\|", with: "|")). \(field.meaning)")
        }
        return lines + kind.notes
    }
}
