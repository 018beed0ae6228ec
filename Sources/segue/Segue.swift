import ArgumentParser
import Foundation
import Segue
import Synchronization

@main
struct SegueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segue",
        abstract: "Turns photos and video clips into stories joined by the transitions of social apps and video editors: MP4, WebM, MOV, GIF, WebP, PNG frames and more.",
        discussion: """
            A story's slides are photos or clips, with text, captions, stickers, fills and \
            sound (music, voices, the clips' own); 'segue render' writes one video, 'segue \
            batch' many, from a manifest or a template and its rows, and a long video in \
            chunks that 'segue join' puts together.

            Exit codes: 0 success; 1 a failure while exporting (a damaged image or clip, an \
            output that cannot be written, a failed batch job); 2 a usage or validation error \
            (a bad option, preset key or value, a missing or unsupported input, an output that \
            exists, a manifest with problems); 130 or 143 interrupted by SIGINT or SIGTERM \
            (nothing is left at the output).

            Needs at run time FFmpeg's libraries, LittleCMS, libheif, libwebp, libyaml, Pango \
            and Cairo, and to draw text the Noto fonts (on Debian: fonts-noto-core, \
            fonts-noto-mono, fonts-noto-color-emoji); 'segue doctor' checks them all where it \
            runs, 'segue fonts' lists the font families it finds.
            """,
        version: ([SegueVersion.headline] + SegueVersion.libraries).joined(separator: "\n"),
        subcommands: [Render.self, Join.self, Checksum.self, Batch.self, Preview.self, Serve.self, ServeTask.self, Presets.self, Transitions.self, Beats.self, MCPCommand.self, FontsCommand.self, DoctorCommand.self]
    )

    /// Runs the command line, mapping errors to the exit codes above.
    static func main() {
        // Frames and pictures are megabytes each: glibc keeps blocks of 1 MiB and more in
        // mappings of their own that go back to the system when freed (it otherwise raises
        // that threshold after the first free and keeps the space), so a long export's memory
        // stays flat. A setting of this program's process, not of the library.
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD, <malloc.h> */, 1 << 20)
        // Messages of FFmpeg's go into Segue's errors, not onto the terminal.
        FFmpegLog.capture()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch _ where Interruption.shared.signal != nil {
            // Whatever an interruption made fail (a mix, a frame, an encoder) ends as the signal.
            Foundation.exit(128 + Interruption.shared.signal!)
        } catch let error as PresetError {
            fail(error.description, code: 2)
        } catch ExportError.cancelled {
            Foundation.exit(128 + (Interruption.shared.signal ?? SIGINT))
        } catch let error as ExportError {
            fail(error.description, code: error.isUsageError ? 2 : 1)
        } catch let error as ManifestError {
            fail(error.description, code: 2)
        } catch let error as ShardError {
            fail(error.description, code: 2)
        } catch let error as PreviewFailed {
            fail(error.description, code: error.code)
        } catch let error as BatchFailed {
            Foundation.exit(error.code)
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

/// SIGINT and SIGTERM cancel the export in progress instead of killing the process, so it
/// can remove what it was writing; the exit code is then 128 + the signal.
final class Interruption: Sendable {
    static let shared = Interruption()
    let cancellation = Cancellation()
    private let received = Locked<Int32?>(nil)
    private let sources = Locked<[DispatchSourceSignal]>([])

    /// The first signal received, if any (set on a signal queue, read on the main thread).
    var signal: Int32? { received.withLock { $0 } }

    func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                Foundation.signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [unowned self] in
                    received.withLock { if $0 == nil { $0 = number } }
                    cancellation.cancel()
                    Interrupt.request()
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}

/// glibc's mallopt(3), which Swift's Glibc module does not export.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
