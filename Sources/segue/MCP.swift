import ArgumentParser
import Foundation
import Segue

/// `segue mcp`: Segue's tools for an agent, over the Model Context Protocol's stdio transport
/// (JSON-RPC 2.0, one message a line): list and describe transitions, check a story, render
/// it, look at a frame, find a track's beats. Each tool runs what the command line runs (the
/// same readers, errors and words); a tool's failure is its error result, never the server's.
///
/// The protocol is spoken here rather than through modelcontextprotocol/swift-sdk: the SDK
/// brings FoundationNetworking (its HTTP transports), which needs libcurl in an executable
/// that otherwise runs copied alone; stdio needs none of it.
struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serves Segue's tools to an agent over the Model Context Protocol (stdio): transitions, story checks, renders, frames and beats.",
        discussion: """
            A client starts 'segue mcp' and speaks JSON-RPC on its standard input and output, \
            one message a line; nothing else is written there (warnings go to standard error). \
            Paths are relative to the folder segue mcp runs in. It ends when its input closes, \
            after the calls running finish. docs/mcp.md shows it wired into a client.
            """
    )

    func run() throws { MCPServer().serve() }
}

/// The tools, one entry a tool: its name, what it does, its arguments and its work.
enum MCPTools {
    struct Entry: Sendable {
        var name: String
        var description: String
        /// Each argument's name, JSON type and meaning.
        var arguments: [(name: String, type: String, meaning: String)]
        var required: [String]
        /// The work: the content it answers (`MCPServer.text`, `.image`); `progress`
        /// reports done of total; `cancellation` is set when the client cancels the call.
        var run: @Sendable (_ arguments: [String: Any], _ progress: @escaping @Sendable (Int, Int) -> Void, _ cancellation: Cancellation) throws -> [[String: Any]]

        var schema: [String: Any] {
            ["name": name, "description": description,
             "inputSchema": ["type": "object", "required": required,
                             "properties": Dictionary(uniqueKeysWithValues: arguments.map { ($0.name, ["type": $0.type, "description": $0.meaning]) })]]
        }
    }

    static let story = (name: "story", type: "string", meaning: "A story file (YAML), relative to the folder segue mcp runs in.")
    static let settings = (name: "set", type: "array", meaning: "Preset keys over the story's, as --set takes them: [\"hold=1.5\", \"canvas.size=[540,960]\"].")

    static let all: [Entry] = [
        Entry(name: "list_transitions", description: "Every transition Segue draws, one a line: its name, family and what it draws.",
              arguments: [], required: []) { _, _, _ in
            [MCPServer.text(TransitionRegistry.all.map { "\($0.name) (\($0.family.rawValue)): \($0.summary)" }.joined(separator: "\n"))]
        },
        Entry(name: "describe_transition", description: "One transition: what it draws, its family and source, and each parameter with its type, default, range and meaning.",
              arguments: [("name", "string", "A transition's name, as list_transitions gives it.")], required: ["name"]) { arguments, _, _ in
            [MCPServer.text(try Transitions.description(of: try text(arguments, "name")).joined(separator: "\n"))]
        },
        Entry(name: "validate_story", description: "Checks a story as a render would, rendering nothing: its problems (file, line, key, what was expected), or its length and each cut's time.",
              arguments: [story, settings], required: ["story"]) { arguments, _, _ in
            let job = try MCPTools.job(arguments, output: "checked.mp4")
            try job.validate()
            return [MCPServer.text((["valid"] + job.warnings.map { "warning: \($0)" } + DryRun.lines(job, name: try text(arguments, "story"), output: false)).joined(separator: "\n"))]
        },
        Entry(name: "render", description: "Renders a story to an output segue render writes (MP4, WebM, MOV, GIF, WebP, a folder of PNGs); progress as notifications; answers the output's path.",
              arguments: [story, ("output", "string", "The output's path: out.mp4, out.webm, out.gif, a folder for PNG frames ..."), settings,
                          ("force", "boolean", "Replace an output that exists (otherwise refused).")], required: ["story", "output"]) { arguments, progress, cancellation in
            let output = try text(arguments, "output")
            let job = try MCPTools.job(arguments, output: output)
            try job.validate()
            let result = try Exporter.run(job, cancellation: cancellation, progress: { progress($0.framesDone, $0.frameCount) })
            return [MCPServer.text(String(format: "wrote %@ (%d frames, %.2f s)", output, result.frameCount, result.seconds))]
        },
        Entry(name: "preview_frame", description: "Frame N of a story, as a PNG picture.",
              arguments: [story, ("frame", "integer", "The frame's index, from 0."), settings], required: ["story", "frame"]) { arguments, _, cancellation in
            guard let frame = arguments["frame"] as? Int, frame >= 0 else { throw ValidationError("frame: expected a frame index, 0 or more") }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("segue-mcp-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let job = try MCPTools.job(arguments, output: folder, format: .png, frames: "\(frame)")
            try job.validate()
            _ = try Exporter.run(job, cancellation: cancellation)
            let png = try Data(contentsOf: URL(fileURLWithPath: folder + String(format: "/frame-%05d.png", frame)))
            return [["type": "image", "data": png.base64EncodedString(), "mimeType": "image/png"]]
        },
        Entry(name: "beats", description: "A sound file's tempo, beats, bar starts, meter, onsets and confidence, as segue beats --json prints them.",
              arguments: [("file", "string", "Any sound FFmpeg decodes, relative to the folder segue mcp runs in.")], required: ["file"]) { arguments, _, _ in
            let file = try text(arguments, "file")
            return [MCPServer.text(try Beats.json(try BeatCache.grid(of: file), file: file))]
        },
    ]

    static func text(_ arguments: [String: Any], _ key: String) throws -> String {
        guard let value = arguments[key] as? String, !value.isEmpty else { throw ValidationError("\(key): expected text, the tool's '\(key)' argument") }
        return value
    }

    /// The job `segue render --story S [--set ...] [--force] -o output` makes.
    static func job(_ arguments: [String: Any], output: String, format: OutputFormat? = nil, frames: String? = nil) throws -> Job {
        let words = ["--story", try text(arguments, "story")] + (frames.map { ["--frames", $0] } ?? [])
        var options = ["--quiet"] + (arguments["force"] as? Bool == true ? ["--force"] : [])
        if let settings = arguments["set"] {
            guard let list = settings as? [String] else { throw ValidationError("set: expected a list of KEY=VALUE texts") }
            options += list.flatMap { ["--set", $0] }
        }
        return try RenderInputs.parse(words).job(options: try ExportOptions.parse(options), output: output, format: format)
    }
}

/// JSON-RPC 2.0 over standard input and output, as MCP's stdio transport has it: requests
/// read a line at a time; `initialize`, `ping`, `tools/list` answered at once, each
/// `tools/call` on a thread of its own (a render keeps its cores for seconds) with its progress
/// sent as `notifications/progress` when the call asked for it and stopped by
/// `notifications/cancelled` (then not answered); every message written whole.
final class MCPServer: Sendable {
    /// The protocol versions spoken, newest first.
    static let versions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    private let writing = Locked(())
    /// The calls running, by their request's id (as JSON), to cancel.
    private let running = Locked([String: Cancellation]())

    static func text(_ text: String) -> [String: Any] { ["type": "text", "text": text] }

    func serve() {
        let calls = DispatchGroup()
        while let line = readLine(strippingNewline: true) {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            guard let message = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                send(["jsonrpc": "2.0", "id": NSNull(), "error": ["code": -32700, "message": "not a JSON-RPC message: \(line.prefix(80))"]])
                continue
            }
            if message["method"] as? String == "notifications/cancelled", let asked = (message["params"] as? [String: Any])?["requestId"] {
                // Stopped within a frame; a cancelled call is not answered (and writes nothing).
                let key = MCPServer.key(asked)
                running.withLock { $0[key]?.cancel() }
                continue
            }
            guard let method = message["method"] as? String, let id = message["id"] else { continue }   // a notification, or a reply
            let params = message["params"] as? [String: Any] ?? [:]
            switch method {
            case "initialize":
                let asked = params["protocolVersion"] as? String ?? ""
                answer(id, ["protocolVersion": MCPServer.versions.contains(asked) ? asked : MCPServer.versions[0],
                            "capabilities": ["tools": ["listChanged": false]],
                            "serverInfo": ["name": "segue", "version": SegueVersion.number]])
            case "ping":
                answer(id, [:])
            case "tools/list":
                answer(id, ["tools": MCPTools.all.map(\.schema)])
            case "tools/call":
                calls.enter()
                let key = MCPServer.key(id), cancellation = Cancellation()
                running.withLock { $0[key] = cancellation }
                Workers.start { [self] in
                    call(line, cancellation: cancellation)
                    running.withLock { $0[key] = nil }
                    calls.leave()
                }
            default:
                send(["jsonrpc": "2.0", "id": id, "error": ["code": -32601, "message": "no method '\(method)'"]])
            }
        }
        calls.wait()
    }

    /// Runs the `tools/call` request of `line`, answering its result.
    private func call(_ line: String, cancellation: Cancellation) {
        guard let message = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], let id = message["id"] else { return }
        let params = message["params"] as? [String: Any] ?? [:]
        let name = params["name"] as? String ?? ""
        guard let tool = MCPTools.all.first(where: { $0.name == name }) else {
            send(["jsonrpc": "2.0", "id": id, "error": ["code": -32602, "message": "no tool '\(name)'; the tools: \(MCPTools.all.map(\.name).joined(separator: ", "))"]])
            return
        }
        let token = (params["_meta"] as? [String: Any])?["progressToken"]
        let tokenData = token.flatMap { try? JSONSerialization.data(withJSONObject: ["t": $0]) }
        let last = Locked(-1)
        let progress: @Sendable (Int, Int) -> Void = { [self] done, total in
            // At most a hundred notifications a call: one each percent (the token read only then).
            guard let tokenData, total > 0 else { return }
            let percent = 100 * done / total
            guard last.withLock({ old in defer { old = max(old, percent) }; return percent > old }),
                  let token = ((try? JSONSerialization.jsonObject(with: tokenData)) as? [String: Any])?["t"] else { return }
            send(["jsonrpc": "2.0", "method": "notifications/progress", "params": ["progressToken": token, "progress": done, "total": total]])
        }
        do {
            let content = try tool.run(params["arguments"] as? [String: Any] ?? [:], progress, cancellation)
            answer(id, ["content": content, "isError": false])
        } catch where cancellation.isCancelled {
            return
        } catch {
            let words = error is ValidationError || error is ArgumentParser.CleanExit ? RenderInputs.message(for: error) : "\(error)"
            answer(id, ["content": [MCPServer.text(words)], "isError": true])
        }
    }

    /// A request id as a key: its JSON (a number and a text that read alike stay apart).
    static func key(_ id: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: [id])).map { String(decoding: $0, as: UTF8.self) } ?? "\(id)"
    }

    private func answer(_ id: Any, _ result: [String: Any]) {
        send(["jsonrpc": "2.0", "id": id, "result": result])
    }

    /// One message, written whole on its line.
    private func send(_ message: [String: Any]) {
        guard var data = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes]) else { return }
        data.append(UInt8(ascii: "\n"))
        writing.withLock { _ in FileHandle.standardOutput.write(data) }
    }
}
