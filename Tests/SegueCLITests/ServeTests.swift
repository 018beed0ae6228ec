import Foundation
import SegueTestSupport
import Testing

/// `segue serve` driven as a pipeline drives it: Tests/Reference/serve_client.py submits,
/// polls, fetches, cancels, kills the service with SIGKILL mid-render and restarts it, and
/// receives its webhooks, verifying each signature.
@Suite("segue serve, driven over HTTP")
struct ServeTests {
    /// The client's run of `scenario` over a fresh folder with two pictures in inputs/; what it saw.
    static func drive(_ python: String, httpx: Bool = false, scenario: String = "service", environment: [String] = []) throws -> (seen: [String: Any], folder: URL) {
        let folder = temporaryFolder()
        let inputs = folder.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for name in ["a.png", "b.png"] {
            try ffmpeg(["-f", "lavfi", "-i", name == "a.png" ? "testsrc=size=320x240" : "color=red:size=320x240", "-frames:v", "1", inputs.appendingPathComponent(name).path])
        }
        let client = repositoryRoot.appendingPathComponent("Tests/Reference/serve_client.py").path
        let run = try tool("env", environment + [python, client, segueBinary, folder.path, "--scenario", scenario] + (httpx ? ["--httpx"] : []))
        try #require(run.status == 0, "\(run.stderr)")
        return (try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]), folder)
    }

    /// `value` as compact JSON, keys sorted: what the client printed, compared as it printed it.
    static func json(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])).map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }

    @Test("renders, ranges, one render per idempotency key, hostile requests refused naming the key, cancel, kill -9 and restart, signed webhooks retried, tokens")
    func service() throws {
        let (seen, folder) = try Self.drive("python3")
        func list(_ key: String) -> [Any] { seen[key] as? [Any] ?? [] }
        func texts(_ key: String) -> String { ServeTests.json(seen[key] ?? NSNull()) }
        #expect(list("created").first as? Int == 202 && (list("created")[1] as? String)?.hasPrefix("/v1/renders/r_") == true, "\(texts("created"))")
        let output = list("output")
        #expect(output.count == 5 && output[0] as? Int == 200 && output[1] as? String == "video/mp4" && output[2] as? Int == output[3] as? Int && output[4] as? String == "bytes")
        #expect(list("range").count == 3 && list("range")[0] as? Int == 206 && (list("range")[1] as? String)?.hasPrefix("bytes 100-199/") == true && list("range")[2] as? Bool == true)
        #expect(seen["range_outside"] as? Int == 416)
        #expect(texts("reused") == ServeTests.json([200, "done", true] as [Any]))
        // 50 POSTs at once with one key: one render, made by one of them.
        #expect(list("idempotent").count == 3 && list("idempotent")[1] as? Int == 1 && list("idempotent")[2] as? Int == 1, "\(texts("idempotent"))")
        #expect(list("key_reused").first as? Int == 422 && list("key_reused").last as? String == "Idempotency-Key")
        for (name, key) in [("passwd", "story.slides[1].image"), ("climb", "story.slides[1].image"), ("link", "story.slides[2].image"), ("template", "template")] {
            let got = list(name)
            #expect(got.first as? Int == 422 && (got[1] as? String)?.hasPrefix("application/problem+json") == true && (got[2] as? [String]) == [key], "\(name): \(got)")
        }
        #expect(list("frames").first as? Int == 422 && (list("frames").last as? String)?.contains("frames") == true, "\(texts("frames"))")
        let invalid = list("invalid").last as? [String: Any] ?? [:]
        #expect(list("invalid").first as? Int == 422 && invalid["key"] as? String == "story.slides[1].hold" && invalid["line"] as? Int == 3 && invalid["file"] as? String == "request body")
        #expect(texts("large") == ServeTests.json([413, "Body too large"] as [Any]) && texts("bad_query") == "[400,400]" && seen["no_route"] as? Int == 404)
        // Sent with the story: rendered, the same again reused, ../ refused naming files, a file
        // neither sent nor in inputs refused naming its key; nothing kept once they end.
        #expect(texts("upload") == ServeTests.json([202, "done", true, 200, "done", true, 422, ["files"], 422, ["story.slides[1].image"], []] as [Any]), "\(texts("upload"))")
        #expect(texts("pages") == "[2,2,true]" && (seen["done_listed"] as? [String]) == ["done"])
        #expect(texts("events") == ServeTests.json([200, "text/event-stream", 1, true] as [Any]))
        #expect(texts("cancel") == ServeTests.json([200, "cancelled", false] as [Any]))
        // Killed mid-render: queued again at the restart, rendered from the start, done once.
        #expect((seen["restart_line"] as? String)?.contains("1 interrupted renders queued again") == true)
        let killed = list("after_kill")
        #expect(killed.count == 5 && killed[0] as? String == "done" && killed[1] as? Int == 2 && killed[2] as? Int == killed[3] as? Int)
        // One message, tried three times (500, 500, 204), each signed; the first render's webhook once.
        #expect(texts("flaky_hooks") == ServeTests.json([3, 1, true, ["render.done"], [500, 500, 204]] as [Any]), "\(texts("flaky_hooks"))")
        #expect(texts("hooks") == ServeTests.json([["/hook", true, "render.done", true]] as [Any]))
        #expect(texts("kept") == ServeTests.json([200, "done"] as [Any]) && (seen["leftovers"] as? [String]) == [])
        #expect(texts("no_token") == ServeTests.json([401, "Bearer", 401] as [Any]) && seen["token"] as? Int == 200 && seen["health_open"] as? Int == 200)
        #expect((list("openapi").last as? [String])?.contains("/v1/renders/{id}/output") == true)
        try Self.expectServedIsRendered(in: folder)
    }

    /// The service's video (served.mp4) is segue render's of the same story, frame for frame.
    static func expectServedIsRendered(in folder: URL) throws {
        let story = folder.appendingPathComponent("inputs/story.yaml")
        try "set: {canvas.size: [90, 160], hold: 0.5}\nslides: [{image: a.png}, {image: b.png}]\n".write(to: story, atomically: true, encoding: .utf8)
        let reference = folder.appendingPathComponent("reference.mp4").path
        #expect(try segue("render", "--story", story.path, "-o", reference).status == 0)
        func frames(_ path: String) throws -> String {
            try tool("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"]).stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        }
        let served = try frames(folder.appendingPathComponent("served.mp4").path)
        let rendered = try frames(reference)
        #expect(!served.isEmpty && served == rendered)
    }

    @Test("hostile: a receiver that hangs delays no other and is given up after six tries, as is one that answers 500 forever; 250 idle and half-sent connections, a 1 GB body, a chunked 2 MiB body, a billion frames and a token's pixel budget are refused or bounded, and it serves on")
    func hostile() throws {
        let (seen, _) = try Self.drive("python3", scenario: "hostile")
        func texts(_ key: String) -> String { ServeTests.json(seen[key] ?? NSNull()) }
        // The other receiver had its message while the hanging one's first try still waited.
        #expect(texts("hang_meanwhile") == "[1,0]", "\(texts("hang_meanwhile"))")
        let timedOut = ServeTests.json(Array(repeating: [NSNull(), true] as [Any], count: 6))
        #expect(texts("hang") == timedOut && seen["hang_tries"] as? Int == 6, "\(texts("hang")) \(texts("hang_tries"))")
        #expect(texts("broken") == ServeTests.json(Array(repeating: [500, false] as [Any], count: 6)), "\(texts("broken"))")
        #expect(texts("idle") == ServeTests.json([250, 200, 202, "done"] as [Any]), "\(texts("idle"))")
        #expect((seen["gigabyte"] as? String)?.hasPrefix("HTTP/1.1 413") == true && (seen["chunked"] as? String)?.hasPrefix("HTTP/1.1 413") == true,
                "\(texts("gigabyte")) \(texts("chunked"))")
        #expect(texts("upload_over") == ServeTests.json(["413", [] as [Any]] as [Any]), "\(texts("upload_over"))")
        let billion = seen["billion"] as? [Any] ?? []
        #expect(billion.first as? Int == 422 && (billion.last as? String)?.contains("pixel-frames") == true, "\(texts("billion"))")
        #expect(texts("budget") == ServeTests.json(["queued", 429, "Over the pixel budget"] as [Any]) && seen["budget_after"] as? Int == 202, "\(texts("budget")) \(texts("budget_after"))")
        #expect(seen["serving"] as? Int == 200)
    }

    @Test("the Kubernetes Deployment in docs/chunks.md: its container's arguments, with its volumes' paths here, start the service, which asks for a token of its Secret")
    func kubernetesDeployment() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/chunks.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## The render service on Kubernetes").dropFirst().first?.components(separatedBy: "\n## ").first)
        let line = try #require(section.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("args: [serve") })
        let root = temporaryFolder()
        let mounts = ["/store": "store", "/data/inputs": "data/inputs", "/secrets/tokens": "secrets/tokens", "/secrets/webhook-secret": "secrets/webhook-secret"]
        try FileManager.default.createDirectory(at: root.appendingPathComponent("data/inputs"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("secrets"), withIntermediateDirectories: true)
        try "sesame\n".write(to: root.appendingPathComponent("secrets/tokens"), atomically: true, encoding: .utf8)
        try ("whsec_" + Data("segue-test-secret-of-24b".utf8).base64EncodedString() + "\n").write(to: root.appendingPathComponent("secrets/webhook-secret"), atomically: true, encoding: .utf8)
        var arguments = line.dropFirst("args: [".count).dropLast().components(separatedBy: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        #expect(arguments.first == "serve" && arguments.contains("--token-file") && arguments.contains("--webhook-secret-file"), "\(arguments)")
        arguments = arguments.map { mounts[$0].map { root.appendingPathComponent($0).path } ?? $0 }
        if let port = arguments.firstIndex(of: "--port") { arguments[port + 1] = "0" }
        let (server, address) = try PreviewTests.serve(Array(arguments.dropFirst()), in: root, command: ["serve"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        #expect(address.hasPrefix("http://0.0.0.0:"), "\(address)")
        let local = address.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        func status(_ extra: [String]) throws -> String { try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + extra + [local + "v1/renders"]).stdout }
        #expect(try status([]) == "401" && status(["-H", "Authorization: Bearer sesame"]) == "200")
    }

    @Test("httpx drives it too, and schemathesis finds no 5xx and no answer that breaks /openapi.json",
          .wholeSuite("httpx and schemathesis (PyPI)"))
    func schemathesis() throws {
        let python = try ReferenceTools.pythonWithServeTools()
        let (seen, _) = try Self.drive(python, httpx: true)
        #expect(seen["token"] as? Int == 200 && "\(seen["cancel"] ?? "")".contains("cancelled"))
        let fuzzed = seen["schemathesis"] as? [Any] ?? []
        #expect(fuzzed.first as? Int == 0, "\(fuzzed.last ?? "no schemathesis run")")
    }

    @Test("the routes and types in Sources/SegueServe/Generated/ and openapi.json are what the document generates",
          .wholeSuite("swift-openapi-generator, built from the package mirror"))
    func generatedFromTheDocument() throws {
        let run = try tool(repositoryRoot.appendingPathComponent("scripts/openapi-generate").path, ["--check"])
        #expect(run.status == 0, "\(run.stderr.suffix(3000))")
    }
}
