import Foundation
import SegueTestSupport
import Testing

/// `segue mcp` driven by a real client: the Python MCP SDK's stdio client
/// (Tests/Reference/mcp_client.py) calls every tool as an agent would.
@Suite("segue mcp, with the Python MCP SDK as its client")
struct MCPTests {
    @Test("every tool answers a real client: transitions, a story checked, rendered with progress, a frame as PNG, beats; errors are tool errors and the server serves on",
          .wholeSuite("the Python MCP SDK (PyPI mcp)"))
    func tools() throws {
        let python = try ReferenceTools.pythonWithMCP()
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] { try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path) }
        let clicks = try clickTrack(bpm: 120, seconds: 8, in: folder)
        try FileManager.default.moveItem(atPath: clicks, toPath: folder.appendingPathComponent("clicks.wav").path)
        try """
            preset: crossfade
            set: {canvas.size: [90, 160]}
            audio: clicks.wav
            timing: {beats: true, every: 2}
            slides: [{image: a.jpg, hold: 1.7}, {image: b.png, hold: 1.2}]
            """.write(to: folder.appendingPathComponent("story.yaml"), atomically: true, encoding: .utf8)
        try "slides:\n  - {image: a.jpg, hold: -1}\n".write(to: folder.appendingPathComponent("broken.yaml"), atomically: true, encoding: .utf8)
        let run = try tool(python, [repositoryRoot.appendingPathComponent("Tests/Reference/mcp_client.py").path, segueBinary, folder.path])
        try #require(run.status == 0, "\(run.stderr)")
        let got = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        func said(_ key: String) -> (error: Bool, text: String) {
            let value = got[key] as? [String: Any] ?? [:]
            return (value["error"] as? Bool ?? true, value["text"] as? String ?? "")
        }
        #expect(got["server"] as? String == "segue" && (got["protocol"] as? String)?.hasPrefix("20") == true)
        #expect(got["tools"] as? [String] == ["beats", "describe_transition", "list_transitions", "preview_frame", "render", "validate_story"])
        let list = said("list"), listed = try segue("transitions").stdout.split(separator: "\n")
        #expect(!list.error && list.text.split(separator: "\n").count == listed.count - listed.filter { $0.contains("= ") }.count)
        // The same words as the command line's.
        let shown = try segue("transitions", "show", "slide").stdout.trimmingCharacters(in: .newlines)
        #expect(said("describe") == (false, shown))
        #expect(said("unknown_transition").error && said("unknown_transition").text.contains("slyde"))
        let valid = said("valid")
        #expect(!valid.error && valid.text.hasPrefix("valid\nstory.yaml: 2 screens") && valid.text.contains("on beat "), "\(valid.text)")
        let invalid = said("invalid")
        #expect(invalid.error && invalid.text.contains("broken.yaml, line 2") && invalid.text.contains("hold"), "\(invalid.text)")
        #expect(!said("render").error && said("render").text.hasPrefix("wrote out.mp4 ("), "\(said("render").text)")
        #expect(try tool("ffprobe", ["-v", "error", folder.appendingPathComponent("out.mp4").path]).stderr.isEmpty)
        let progress = (got["progress"] as? [[NSNumber]]) ?? []
        #expect(progress.count >= 2 && progress.last.map { $0[0] == $0[1] } == true, "\(progress)")
        // A second render of the same output is refused, as the command line refuses it.
        #expect(said("again").error && said("again").text.contains("out.mp4"), "\(said("again").text)")
        let frame = got["frame"] as? [String: Any] ?? [:]
        #expect(frame["error"] as? Bool == false && frame["mime"] as? String == "image/png" && frame["png"] as? String == "89504e470d0a1a0a")
        let size = try tool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", folder.appendingPathComponent("frame.png").path])
        #expect(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "64,96")
        let beats = said("beats")
        #expect(!beats.error && beats.text.contains("\"bpm\":120"), "\(beats.text)")
        #expect((got["no_tool"] as? String)?.contains("no tool 'no_such_tool'") == true && got["after"] as? Bool == false)
    }

    @Test("the protocol itself: a line each, answers by id, a parse error and an unknown method answered as errors, the input's end ends the server")
    func protocolLines() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        try "set: {canvas.size: [90, 160]}\nslides: [{image: a.jpg}, {image: a.jpg}]\n".write(to: folder.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        let input = folder.appendingPathComponent("in.jsonl")
        try [#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
             #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
             #"{"jsonrpc":"2.0","id":"two","method":"tools/list"}"#,
             "not json",
             #"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#,
             #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"validate_story","arguments":{"story":"s.yaml"}}}"#,
             #"{"jsonrpc":"2.0","id":5,"method":"ping"}"#].joined(separator: "\n").write(to: input, atomically: true, encoding: .utf8)
        let run = try tool("sh", ["-c", "cd '\(folder.path)' && '\(segueBinary)' mcp < in.jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let replies = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(replies.count == 6, "\(run.stdout)")
        func reply(_ id: AnyHashable) -> [String: Any]? { replies.first { ($0["id"] as? AnyHashable) == id } }
        let started = reply(1)?["result"] as? [String: Any]
        #expect(started?["protocolVersion"] as? String == "2025-06-18" && (started?["serverInfo"] as? [String: Any])?["name"] as? String == "segue")
        #expect(((reply("two")?["result"] as? [String: Any])?["tools"] as? [Any])?.count == 6)
        #expect((replies.first { $0["id"] is NSNull }?["error"] as? [String: Any])?["code"] as? Int == -32700)
        #expect((reply(3)?["error"] as? [String: Any])?["code"] as? Int == -32601)
        let checked = reply(4)?["result"] as? [String: Any]
        #expect(checked?["isError"] as? Bool == false && ((checked?["content"] as? [[String: Any]])?.first?["text"] as? String)?.hasPrefix("valid\ns.yaml: 2 screens") == true)
        #expect(reply(5)?["result"] is [String: Any])
    }

    @Test("a render the client cancels stops, is not answered, and leaves nothing at its output; the server answers on")
    func cancelled() throws {
        let folder = temporaryFolder()
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        // A minute of 1080x1920 (1,800 frames): far longer than the lines below take to be read.
        try "set: {hold: 30}\nslides: [{image: a.jpg}, {image: a.jpg}]\n".write(to: folder.appendingPathComponent("long.yaml"), atomically: true, encoding: .utf8)
        try [#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
             #"{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"render","arguments":{"story":"long.yaml","output":"long.mp4"}}}"#,
             #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r","reason":"changed my mind"}}"#,
             #"{"jsonrpc":"2.0","id":2,"method":"ping"}"#].joined(separator: "\n").write(to: folder.appendingPathComponent("in.jsonl"), atomically: true, encoding: .utf8)
        let run = try tool("sh", ["-c", "cd '\(folder.path)' && '\(segueBinary)' mcp < in.jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let ids = run.stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? AnyHashable }
        #expect(ids == [1, 2] as [AnyHashable], "\(run.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("long.mp4") }.isEmpty)
    }
}
