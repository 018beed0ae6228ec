import ArgumentParser
import Foundation
import Segue

struct FontsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fonts",
        abstract: "Lists the font families fontconfig finds, one a line, for a text style's font key.",
        discussion: """
            Text falls back, character by character, to a font that has it: colour emoji come \
            from Noto Color Emoji, Arabic and Devanagari from the Noto fonts (Debian's \
            fonts-noto-core and fonts-noto-color-emoji). A story may also name a font file \
            (font: fonts/Brand.otf), which is added for its render.
            """
    )

    @Option(help: ArgumentHelp("Only families whose name contains this (any case).", valueName: "TEXT"))
    var matching: String?

    func run() throws {
        let families = Fonts.families().filter { family in matching.map { family.localizedCaseInsensitiveContains($0) } ?? true }
        print(families.joined(separator: "\n"))
    }
}
