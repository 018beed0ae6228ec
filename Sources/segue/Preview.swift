import ArgumentParser
import Dispatch
import Foundation
import Segue
import SeguePreview

struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serves a local page that plays the story and renders it again each time one of its files is saved.",
        discussion: """
            Prints the page's address and serves until stopped (Ctrl-C). The page plays a proxy \
            of the story (--proxy-scale of each side) in a phone-sized frame, with a timeline of \
            its slides, cuts, text, captions and sound; arrows step a frame, J/K/L play back, \
            pause and forward, F shows the frame at the playhead at full resolution (the frame \
            'segue render --frames N' writes). Saving the story, its preset file, a caption \
            file or any input updates the page by itself, keeping the playhead; only the \
            slides an edit changes are rendered again. A story that no longer reads shows its \
            errors in the page while the last good preview stays. The Render button exports \
            the story to -o with the options given here.

            The server listens on 127.0.0.1 only, unless --host says otherwise, and answers \
            only requests addressed to itself.
            """
    )

    @Argument(help: ArgumentHelp("The story file (YAML).", valueName: "STORY"))
    var story: String

    @Option(name: .long, help: "A preset's name or file, over the story's own.", completion: .presets)
    var preset: String?

    @Option(name: .customLong("var"), help: ArgumentHelp("A value for one of the story's {{variables}}; repeatable.", valueName: "NAME=VALUE"))
    var vars: [String] = []

    @Option(help: ArgumentHelp("A CSV or JSON Lines file of rows for the story's {{variables}} (a template); the page picks the row.", valueName: "FILE"))
    var data: String?

    @Option(help: ArgumentHelp("The port; 0 picks a free one.", valueName: "N"))
    var port: Int = 7450

    @Option(help: ArgumentHelp("The address to listen on. Anything but loopback lets other machines see your files' pictures.", valueName: "ADDRESS"))
    var host: String = "127.0.0.1"

    @Option(help: ArgumentHelp("The proxy's size as a fraction of each side of the canvas, 0.1 to 1 (0.5: a quarter of the pixels).", valueName: "FRACTION"))
    var proxyScale: Double = 0.5

    @Option(name: .short, help: ArgumentHelp("Where the Render button exports the story (default: the story's name with .mp4, beside it).", valueName: "OUTPUT"))
    var output: String?

    @OptionGroup var options: ExportOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected 0 to 65535.") }
        guard (0.1...1).contains(proxyScale) else { throw ValidationError("--proxy-scale \(proxyScale): expected 0.1 to 1.") }
        _ = try RenderInputs.values(of: vars)
        if let output, OutputFormat.inferred(from: output) == nil { throw ValidationError("-o \(output): expected a video or picture name (.mp4, .webm, .mov, .gif, .webp).") }
    }

    func run() throws {
        guard FileManager.default.isReadableFile(atPath: story) else {
            throw PreviewFailed(message: "\(story): no such story file (expected a YAML story)", code: 2)
        }
        if let data, !FileManager.default.isReadableFile(atPath: data) {
            throw PreviewFailed(message: "--data \(data): no such file (expected CSV or JSON Lines rows)", code: 2)
        }
        let loopback = ["127.0.0.1", "localhost", "::1"].contains(host)
        if !loopback {
            FileHandle.standardError.write(Data("segue: warning: --host \(host): the preview is served beyond this machine; anyone who reaches it sees the story's pictures.\n".utf8))
        }
        let output = self.output ?? (story as NSString).deletingPathExtension + ".mp4"
        let settings = PreviewSettings(story: story, preset: preset, overrides: options.presetOverrides, library: try options.library.library(),
                                       vars: try RenderInputs.values(of: vars), data: data, limits: options.limits,
                                       threads: options.threads ?? CPUBudget.forThisProcess, proxyScale: proxyScale, output: output,
                                       host: host, port: port)
        let ended = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        let quiet = options.quiet
        Task {
            do {
                try await PreviewServer.run(settings) { address in
                    let line = quiet ? address : "segue: previewing \(story) at \(address) (Ctrl-C stops)"
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            } catch {
                failure.withLock { $0 = error }
            }
            ended.signal()
        }
        ended.wait()
        if let error = failure.withLock({ $0 }) {
            // A story that cannot be read is the user's to fix (2), as for `render`; a server
            // that cannot listen is this machine's (1).
            if error is PreviewServer.CannotServe { throw PreviewFailed(message: "preview: cannot serve on \(host) port \(port): \(error)", code: 1) }
            throw error
        }
    }
}

/// The preview could not start: a file it was given is missing (2), or the server cannot
/// listen (the port taken, say: 1).
struct PreviewFailed: Error, CustomStringConvertible {
    var message: String
    var code: Int32
    var description: String { message }
}
