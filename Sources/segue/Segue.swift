import ArgumentParser
import Foundation
import Segue

@main
struct SegueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segue",
        abstract: "Turns still images into MP4 videos joined by the transitions of social apps.",
        discussion: """
            Exit codes: 0 success, 1 a failure while exporting (an unreadable image, an \
            output that cannot be written), 2 a usage or validation error (a bad option, \
            preset key or value).
            """,
        subcommands: [Render.self],
        defaultSubcommand: nil
    )

    /// Runs the command line; exit codes are 2 for usage and validation errors and 1 for
    /// failures while exporting.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as PresetError {
            fail(error.description, code: 2)
        } catch let error as ExportError {
            if case .invalidJob = error { fail(error.description, code: 2) }
            fail(error.description, code: 1)
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is CleanExit { exit(withError: error) }
            let message = fullMessage(for: error)
            FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("segue: error: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
