import Foundation
import SegueTestSupport
import Testing

/// `segue preview` as a user meets it: the installed binary serving a story from its own
/// folder, the page in Debian's Chromium driven by Playwright (Tests/Reference/preview.py).
@Suite("segue preview in a real browser", .serialized)
struct PreviewTests {
    /// A story of three slides with music, captions, text on the screen and on a slide, at 360x640.
    static func story(in folder: URL) throws -> URL {
        for name in ["a.jpg", "b.png", "c.webp", "talk.vtt"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        _ = try ffmpegMake("music.m4a", ["-f", "lavfi", "-i", "sine=frequency=330:duration=8", "-c:a", "aac"], in: folder)
        let story = folder.appendingPathComponent("story.yaml")
        try """
            preset: stories-cube
            set: {canvas.size: [360, 640], canvas.scale: 1}
            audio: music.m4a
            captions: talk.vtt
            overlays:
              - {text: "Preview", at: [0.5, 0.15], end: 2}
            slides:
              - image: a.jpg
                hold: 1.0
                motion: in
                transition: {kind: crossfade, duration: 0.4}
              - image: b.png
                hold: 1.0
                overlays: [{text: "Day two"}]
                transition: {kind: slideleft, duration: 0.4}
              - image: c.webp
                hold: 1.0

            """.write(to: story, atomically: true, encoding: .utf8)
        return story
    }

    /// The server started on a free port from another folder; its address, read from what it
    /// prints. `command`: the preview's, or another server's (`serve`) with its own port.
    static func serve(_ arguments: [String], in folder: URL, command: [String] = ["preview", "--port", "0"]) throws -> (Process, String) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: segueBinary)
        server.arguments = command + arguments
        server.currentDirectoryURL = folder
        let out = Pipe()
        server.standardOutput = out
        try server.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        let address = try #require(text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://") }.map(String.init), "\(text)")
        return (server, address)
    }

    @Test("the page plays the story, follows edits with the playhead kept, shows errors, frames at full resolution, and refuses foreign requests",
          .wholeSuite("Chromium driven by Playwright"))
    func page() throws {
        let folder = temporaryFolder()
        let story = try Self.story(in: folder)
        let elsewhere = temporaryFolder()
        let (server, address) = try Self.serve([story.path, "-o", folder.appendingPathComponent("out.mp4").path], in: elsewhere)
        defer {
            server.interrupt()
            server.waitUntilExit()
        }
        let python = try ReferenceTools.pythonWithPlaywright()
        let framePNG = folder.appendingPathComponent("frame.png").path, shot = folder.appendingPathComponent("page.png").path
        let script = repositoryRoot.appendingPathComponent("Tests/Reference/preview.py").path
        let r = try run(python, [script, address, story.path, "--frame-out", framePNG, "--screenshot", shot])
        try #require(r.status == 0, "\(r.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        func number(_ key: String) -> Double { (seen[key] as? NSNumber)?.doubleValue ?? .nan }
        func flag(_ key: String) -> Bool { seen[key] as? Bool ?? false }

        #expect((seen["console_errors"] as? [String])?.isEmpty == true, "\(seen["console_errors"] ?? "")")
        #expect(flag("loaded") && flag("ended") && flag("thumbnails_drawn"), "\(seen)")
        // 1 + 0.4 + 1 + 0.4 + 1 seconds at 30 fps.
        #expect(abs(number("story_duration") - 3.8) < 0.01)
        #expect(abs(number("video_duration") - 3.8) < 0.05, "\(number("video_duration"))")
        #expect(number("slide_blocks") == 3 && number("cut_blocks") == 2)
        // The screen's text, three caption cues and the slide's text.
        #expect(number("overlay_blocks") == 5, "\(number("overlay_blocks"))")
        #expect((seen["origin_text"] as? String)?.contains("story.yaml, line 12") == true, "\(seen["origin_text"] ?? "")")
        #expect(number("frame_after_step") == 31, "\(number("frame_after_step"))")
        // A hold one second longer: the page within 3 s, the playhead where it was; one part rendered again.
        #expect(number("update_seconds") < 3, "\(number("update_seconds"))")
        #expect(abs(number("video_duration_after") - 4.8) < 0.05, "\(number("video_duration_after"))")
        #expect(flag("time_kept"))
        let build = seen["rendered_again"] as? [String: Any]
        // Every part: the captions run on the video's clock, and the slides after the first moved.
        #expect((build?["segments"] as? Int) == 3 && (build?["rendered"] as? Int) == 3, "\(build ?? [:])")
        // The last slide held longer: its part and the transition into it, not the first slide's.
        let last = seen["last_hold_build"] as? [String: Any]
        #expect((last?["segments"] as? Int) == 3 && (last?["rendered"] as? Int) == 2 && (last?["soundRendered"] as? Bool) == true, "\(last ?? [:])")
        // A story that does not read: its error with the line, the last video kept.
        #expect(flag("error_shown") && flag("video_kept") && flag("error_cleared"))
        let error = seen["error_text"] as? String ?? ""
        #expect(error.hasPrefix("segue: error: story ") && error.contains("story.yaml: not valid YAML: line 20"), "\(error)")
        // The refusals.
        #expect((seen["export_statuses"] as? [Int]) == [200, 409], "\(seen["export_statuses"] ?? "")")
        #expect(flag("export_done"), "\(seen["export_text"] ?? "")")
        #expect(number("export_from_elsewhere") == 403)
        let traversal = seen["traversal"] as? [Any], plain = seen["traversal_plain"] as? [Any]
        #expect((traversal?.first as? Int) == 404 && (traversal?.last as? String)?.contains("root:") == false, "\(traversal ?? [])")
        #expect((plain?.first as? Int) == 404, "\(plain ?? [])")
        #expect(number("foreign_host") == 403)
        #expect((seen["csp"] as? String)?.contains("default-src 'self'") == true)

        // The full-resolution frame is `segue render --frames N`'s, pixel for pixel.
        let n = Int(number("full_frame_number"))
        #expect((seen["full_frame_size"] as? [Int]) == [360, 640])
        #expect((seen["full_frame_src"] as? String)?.hasPrefix("/frame/\(n)") == true)
        let rendered = folder.appendingPathComponent("frames").path
        let cli = try run(segueBinary, ["render", "--story", story.path, "--frames", String(n), "-o", rendered], in: elsewhere)
        try #require(cli.status == 0, "\(cli.stderr)")
        func pixels(_ png: String) throws -> Data {
            let raw = folder.appendingPathComponent(UUID().uuidString + ".rgba").path
            let decoded = try tool("ffmpeg", ["-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgba", raw])
            try #require(decoded.status == 0, "\(decoded.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: raw))
        }
        let page = try pixels(framePNG), cliFrame = try pixels(rendered + String(format: "/frame-%05d.png", n))
        #expect(page.count == 360 * 640 * 4 && page == cliFrame)

        // A caption's origin is its cue's line in the VTT; the full frame's bar is opaque; the
        // story has no target, so the safe-area toggle is off; an export's status belongs to
        // the story it exported, and to the page that saw it start.
        let caption = seen["caption_origin"] as? String ?? ""
        let cueLines = ["We walked": 3, "and the light": 6, "see you soon": 9]
        #expect(cueLines.contains { caption.contains("“\($0.key)") && caption.hasSuffix("talk.vtt, line \($0.value)") }, "\(caption)")
        #expect(seen["full_bar_background"] as? String == "rgb(32, 34, 40)" && seen["full_view_background"] as? String == "rgb(0, 0, 0)", "\(seen)")
        #expect(flag("safe_disabled") && flag("safe_hidden"))
        #expect(flag("export_status_shown") && !flag("export_status_after_edit") && !flag("export_status_fresh_page"), "\(seen)")
        // At 420, 768 and 1440 px: nothing overflows, cut labels whole and apart, the music's label over its levels.
        let widths = seen["widths"] as? [String: [String: Any]] ?? [:]
        #expect(widths.count == 3)
        for (width, facts) in widths {
            #expect((facts["page"] as? Int) == (facts["window"] as? Int) && (facts["wide"] as? [String])?.isEmpty == true, "\(width): \(facts)")
            #expect((facts["labels"] as? Int) == 2 && facts["labels_meet"] as? Bool == false && (facts["labels_outside"] as? Int) == 0
                    && (facts["labels_cut"] as? Int) == 0 && facts["music_label_over"] as? Bool == true, "\(width): \(facts)")
        }
        // A page of another origin shows none of the preview's pictures or video.
        let foreign = seen["elsewhere"] as? [String: Any] ?? [:]
        #expect((foreign["frame"] as? Int) == 0 && (foreign["thumb"] as? Int) == 0 && (foreign["video"] as? Int) == 0, "\(foreign)")

        // The export the page ran: the story as it now reads (5.3 s), with its sound.
        let probe = try tool("ffprobe", ["-v", "error", "-show_entries", "format=duration:stream=codec_type", "-of", "csv=p=0",
                                         folder.appendingPathComponent("out.mp4").path])
        #expect(probe.stdout.contains("video") && probe.stdout.contains("audio") && probe.stdout.contains("5.3"), "\(probe.stdout)")
        if ProcessInfo.processInfo.environment["SEGUE_UPDATE_GOLDEN"] == "1" {
            let docs = repositoryRoot.appendingPathComponent("docs/preview.png").path
            try? FileManager.default.removeItem(atPath: docs)
            try FileManager.default.copyItem(atPath: shot, toPath: docs)
        }
    }

    @Test("a template with --data: the page's row picker previews another row; a change from another origin is refused")
    func rows() throws {
        let folder = temporaryFolder()
        for name in ["card.yaml", "people.csv", "a.jpg", "b.png", "c.webp"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        let (server, address) = try Self.serve([folder.appendingPathComponent("card.yaml").path, "--data",
                                                folder.appendingPathComponent("people.csv").path, "--set", "canvas.size=[180,320]"],
                                               in: temporaryFolder())
        defer {
            server.interrupt()
            server.waitUntilExit()
        }
        func story() throws -> [String: Any] {
            let r = try tool("curl", ["-s", address + "api/story"])
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        func texts(_ reply: [String: Any]) -> [String] {
            ((reply["story"] as? [String: Any])?["overlays"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        }
        var reply = try story()
        for _ in 0..<300 where reply["ok"] as? Bool != true {
            usleep(50_000)
            reply = try story()
        }
        #expect(texts(reply) == ["Welcome, Ana"], "\(reply)")
        let rows = (reply["story"] as? [String: Any])?["rows"] as? [String]
        #expect(rows?.count == 3 && rows?.first?.contains("ana") == true, "\(rows ?? [])")
        let origin = String(address.dropLast())
        let foreign = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Origin: http://evil.example", address + "api/row?index=1"])
        #expect(foreign.stdout == "403")
        let picked = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Origin: \(origin)", address + "api/row?index=1"])
        #expect(picked.stdout == "200")
        let outside = try tool("curl", ["-s", "-X", "POST", "-H", "Origin: \(origin)", address + "api/row?index=7"])
        #expect(outside.stdout.contains("row 8: the data has 3 rows"), "\(outside.stdout)")
        for _ in 0..<300 where texts(reply) != ["أهلاً, عمر"] {
            usleep(50_000)
            reply = try story()
        }
        #expect(texts(reply) == ["أهلاً, عمر"] && ((reply["story"] as? [String: Any])?["row"] as? Int) == 1, "\(reply)")
    }

    @Test("the timeline names a cut's motion blur (a camera move's own, or motionBlur) and shows a light leak in its own kind")
    func motionOnTheTimeline() throws {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] { try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path) }
        let story = folder.appendingPathComponent("story.yaml")
        try """
            overlays: [{leak: {seed: 2, color: rose, start: 0.5, duration: 1}}]
            slides:
              - {image: a.jpg, hold: 1, transition: {kind: whip, duration: 0.4}}
              - {image: b.png, hold: 1, transition: {kind: slide, motionBlur: 180}}
              - {image: a.jpg, hold: 1}
            """.write(to: story, atomically: true, encoding: .utf8)
        let described = try Self.described(story)
        let cuts = (described["cuts"] as? [[String: Any]]) ?? []
        #expect(cuts.map { $0["kind"] as? String } == ["whip", "slide"], "\(cuts)")
        #expect(cuts.map { ($0["blur"] as? NSNumber)?.doubleValue } == [360, 180], "\(cuts)")
        let overlays = (described["overlays"] as? [[String: Any]]) ?? []
        #expect(overlays.contains { $0["kind"] as? String == "leak" && ($0["text"] as? String)?.contains("rose") == true }, "\(overlays)")
    }

    /// The story `/api/story` describes once the preview of `story` (at 180x320) is up to date.
    static func described(_ story: URL) throws -> [String: Any] {
        let (server, address) = try serve([story.path, "--set", "canvas.size=[180,320]"], in: temporaryFolder())
        defer {
            server.interrupt()
            server.waitUntilExit()
        }
        var reply: [String: Any] = [:]
        for _ in 0..<300 where reply["ok"] as? Bool != true {
            let r = try tool("curl", ["-s", address + "api/story"])
            reply = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
            if reply["ok"] as? Bool != true { usleep(50_000) }
        }
        return try #require(reply["story"] as? [String: Any])
    }

    @Test("timing: beats: the music's lane has the beat grid, each cut the beat it is on")
    func beatGrid() throws {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] { try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path) }
        let music = try clickTrack(bpm: 120, seconds: 12, in: folder)
        let story = folder.appendingPathComponent("story.yaml")
        try """
            audio: \((music as NSString).lastPathComponent)
            timing: {beats: true, every: 2}
            slides:
              - {image: a.jpg, hold: 1.7, transition: {kind: crossfade, duration: 1b}}
              - {image: b.png, hold: 1.9, transition: cut}
              - {image: a.jpg, hold: 1}
            """.write(to: story, atomically: true, encoding: .utf8)
        let described = try Self.described(story)
        let cuts = (described["cuts"] as? [[String: Any]]) ?? []
        // Every 2 beats of 120 BPM: whole seconds.
        #expect(cuts.map { (($0["beat"] as? NSNumber)?.doubleValue ?? -1).rounded() } == [2, 4], "\(cuts)")
        #expect(cuts.allSatisfy { ($0["beatLabel"] as? String)?.hasPrefix("beat ") == true && $0["moved"] is NSNumber }, "\(cuts)")
        let lanes = (described["lanes"] as? [[String: Any]]) ?? []
        let grid = (lanes.first { $0["kind"] as? String == "music" }?["beats"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(grid.count >= 5 && grid.allSatisfy { abs($0 - $0.rounded()) < 0.02 }, "\(grid)")
    }

    @Test("a preset file the story's preset extends is watched too: saving it updates the story")
    func presetChain() throws {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        try "extends: crossfade\nhold: 1\ncanvas: {size: [90, 160], scale: 0.25}\n".write(to: folder.appendingPathComponent("base.yaml"), atomically: true, encoding: .utf8)
        try "extends: base.yaml\ntransition: {duration: 0.5}\n".write(to: folder.appendingPathComponent("mine.yaml"), atomically: true, encoding: .utf8)
        try "preset: mine.yaml\nslides: [{image: a.jpg}, {image: b.png}]\n".write(to: folder.appendingPathComponent("story.yaml"), atomically: true, encoding: .utf8)
        let (server, address) = try Self.serve([folder.appendingPathComponent("story.yaml").path], in: temporaryFolder())
        defer {
            server.interrupt()
            server.waitUntilExit()
        }
        func duration() throws -> Double? {
            let r = try tool("curl", ["-s", address + "api/story"])
            let reply = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            return (reply?["story"] as? [String: Any])?["duration"] as? Double
        }
        var seen = try duration()
        for _ in 0..<300 where seen == nil {
            usleep(50_000)
            seen = try duration()
        }
        #expect(seen.map { abs($0 - 2.5) < 0.01 } == true, "\(seen ?? -1)")
        try "extends: crossfade\nhold: 2\ncanvas: {size: [90, 160], scale: 0.25}\n".write(to: folder.appendingPathComponent("base.yaml"), atomically: false, encoding: .utf8)
        for _ in 0..<300 where seen.map({ abs($0 - 4.5) < 0.01 }) != true {
            usleep(50_000)
            seen = try duration()
        }
        #expect(seen.map { abs($0 - 4.5) < 0.01 } == true, "\(seen ?? -1)")
    }

    @Test("a story that does not exist, a bad port or proxy scale: exit 2 with the reason, no server; a port in use or an address not this machine's: exit 1 with the system's reason")
    func refusals() throws {
        let folder = temporaryFolder()
        let none = folder.appendingPathComponent("none.yaml").path
        let missing = try run(segueBinary, ["preview", none])
        #expect(missing.status == 2 && missing.stderr == "segue: error: \(none): no such story file (expected a YAML story)\n", "\(missing.stderr)")
        let port = try run(segueBinary, ["preview", "x.yaml", "--port", "70000"])
        #expect(port.status == 2 && port.stderr.contains("--port 70000"), "\(port.stderr)")
        let scale = try run(segueBinary, ["preview", "x.yaml", "--proxy-scale", "3"])
        #expect(scale.status == 2 && scale.stderr.contains("--proxy-scale"), "\(scale.stderr)")
        // A port another server holds: exit 1 naming it.
        let story = try Self.story(in: folder)
        let (server, address) = try Self.serve([story.path], in: folder)
        defer {
            server.interrupt()
            server.waitUntilExit()
        }
        let busy = String(address.split(separator: ":").last!.dropLast())
        let taken = try run(segueBinary, ["preview", story.path, "--port", busy])
        #expect(taken.status == 1 && taken.stderr == "segue: error: preview: cannot serve on 127.0.0.1 port \(busy): Address already in use (errno 98)\n", "\(taken.stderr)")
        // An address no interface of this machine has (TEST-NET-1, RFC 5737).
        let foreign = try run(segueBinary, ["preview", story.path, "--host", "192.0.2.1", "--port", "0", "--quiet"])
        #expect(foreign.status == 1 && foreign.stderr.hasSuffix("segue: error: preview: cannot serve on 192.0.2.1 port 0: Cannot assign requested address (errno 99)\n"), "\(foreign.stderr)")
    }

    @Test("forty full frames asked at once: as many as are admitted are drawn, the rest are 503 with Retry-After, and the server serves on")
    func frameBurst() throws {
        let folder = temporaryFolder()
        let story = try Self.story(in: folder)
        // Full frames of 720x1280: each takes long enough that the forty arrive while the first are drawn.
        let (server, address) = try Self.serve([story.path, "--set", "canvas.size=[720,1280]", "--quiet"], in: folder)
        defer {
            server.interrupt()
            server.waitUntilExit()
        }
        var reply = ""
        for _ in 0..<600 where !reply.contains("\"ok\":true") {
            usleep(50_000)
            reply = try tool("curl", ["-s", address + "api/story"]).stdout
        }
        try #require(reply.contains("\"ok\":true"), "\(reply.prefix(600))")
        let urls = (0..<40).flatMap { n in ["-o", "/dev/null", address + "frame/\(n)"] }
        let burst = try tool("curl", ["-s", "--parallel", "--parallel-immediate", "--parallel-max", "40",
                                      "-w", "%{http_code} %header{retry-after}\n"] + urls)
        let replies = burst.stdout.split(separator: "\n").map(String.init)
        #expect(replies.count == 40 && replies.allSatisfy { $0 == "200 " || $0 == "503 1" }, "\(replies)")
        let drawn = replies.filter { $0.hasPrefix("200") }.count
        #expect(drawn >= 2 && drawn <= 20, "\(drawn) of 40 drawn: at most 8 at once")
        let after = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", address + "frame/5"])
        #expect(after.stdout == "200")
    }

    @Test("every reply, refusals and 404s too, has its Content-Type, nosniff, CORP and the CSP; cross-site asks are 403, two Hosts and foreign targets 400; SIGINT exits 130, SIGTERM 143")
    func headersAndRefusals() throws {
        let folder = temporaryFolder()
        let story = try Self.story(in: folder)
        for (signal, code) in [("INT", Int32(130)), ("TERM", Int32(143))] {
            let (server, address) = try Self.serve([story.path], in: folder)
            let authority = String(address.dropFirst("http://".count).dropLast())
            defer { if server.isRunning { server.terminate() } }
            // curl's status line and headers for a GET of `path` with `headers`.
            func reply(_ path: String, _ headers: [String] = [], target: String? = nil) throws -> (status: Int, headers: String) {
                let arguments = ["-s", "-o", "/dev/null", "-D", "-", "--max-time", "60"] + headers.flatMap { ["-H", $0] }
                    + (target.map { ["--request-target", $0] } ?? []) + [address + path]
                let r = try tool("curl", arguments)
                let status = Int(r.stdout.split(separator: " ").dropFirst().first ?? "") ?? -1
                return (status, r.stdout.lowercased())
            }
            func hasEveryHeader(_ headers: String) -> Bool {
                ["content-type:", "x-content-type-options: nosniff", "cross-origin-resource-policy: same-origin", "content-security-policy: default-src 'self'"]
                    .allSatisfy(headers.contains)
            }
            let asked: [(path: String, headers: [String], target: String?, status: Int)] = [
                ("page.js", [], nil, 200), ("", ["Sec-Fetch-Site: same-origin"], nil, 200), ("nothing/here", [], nil, 404),
                ("frame/x", [], nil, 404), ("api/story", ["Host: evil.example"], nil, 403),
                ("frame/0", ["Sec-Fetch-Site: cross-site"], nil, 403), ("thumb/0", ["Sec-Fetch-Site: same-site"], nil, 403),
                ("proxy.mp4", ["Sec-Fetch-Site: cross-site"], nil, 403), ("", [], "http://evil.example/frame/0", 400),
            ]
            for ask in asked {
                let (status, headers) = try reply(ask.path, ask.headers, target: ask.target)
                #expect(status == ask.status && hasEveryHeader(headers), "/\(ask.path) \(ask.headers) \(ask.target ?? ""): \(headers)")
            }
            // Two Host headers, the right one first (curl sends one): 400, as RFC 9112 says.
            let python = try ReferenceTools.python()
            let raw = try run(python, ["-c", """
                import socket, sys
                host, port = sys.argv[1].rsplit(':', 1)
                s = socket.create_connection((host, int(port)), timeout=60)
                s.sendall(f'GET /frame/0 HTTP/1.1\\r\\nHost: {sys.argv[1]}\\r\\nHost: evil.example\\r\\nConnection: close\\r\\n\\r\\n'.encode())
                print(s.recv(4096).decode(errors='replace'))
                """, authority])
            #expect(raw.stdout.hasPrefix("HTTP/1.1 400") && hasEveryHeader(raw.stdout.lowercased()), "\(raw.stdout) \(raw.stderr)")
            _ = try tool("kill", ["-\(signal)", String(server.processIdentifier)])
            server.waitUntilExit()
            #expect(server.terminationStatus == code, "SIG\(signal): exit \(server.terminationStatus)")
        }
    }
}
