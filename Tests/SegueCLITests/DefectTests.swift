import Foundation
import Testing

@Suite("Found by trying Segue as a new user")
struct DefectTests {
    let small = ["--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.2"]

    @Test("-o - is for framemd5 and yuv only; an output that is an input is refused even with --force")
    func outputs() throws {
        let photos = try photoFolder()
        let stdout = try run(segueBinary, ["render", "a.jpg", "--format", "mp4", "-o", "-"] + small, in: photos)
        #expect(stdout.status == 2 && stdout.stderr.contains("-o - writes to standard output, which only framemd5 and yuv output can go to"), "\(stdout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: photos.appendingPathComponent("-").path))
        let original = try Data(contentsOf: photos.appendingPathComponent("b.png"))
        for extra in [[], ["--force"]] {
            let r = try run(segueBinary, ["render", "a.jpg", "b.png", "-o", "./b.png"] + extra + small, in: photos)
            #expect(r.status == 2 && r.stderr.contains("b.png: is one of the inputs; an export never writes over its own input"), "\(r.stderr)")
        }
        #expect(try Data(contentsOf: photos.appendingPathComponent("b.png")) == original)
    }

    @Test("two renders racing for one path: the one that finishes second does not replace the first's file")
    func race() throws {
        let photos = try photoFolder()
        let out = photos.appendingPathComponent("story.mp4").path
        // Long enough, every frame composed (a Ken Burns move), that the other writer comes
        // while it renders however fast the machine is: still holds encode in a blink.
        let render = try Launched(segueBinary, ["render", "a.jpg", "b.png", "--size", "360x640", "--set", "canvas.scale=1", "--set", "hold=10",
                                                "--set", "motion.kind=in", "--threads", "1", "-o", out], in: photos)
        // Once the first render is writing, another writer puts its file at the output.
        let deadline = Date().addingTimeInterval(30)
        while !files(in: photos.path).contains(where: { $0.contains("segue-tmp") }), Date() < deadline { usleep(10_000) }
        try "the other writer's video".write(toFile: out, atomically: true, encoding: .utf8)
        let (status, stderr) = render.finish()
        #expect(status == 2, "\(stderr)")
        #expect(stderr.contains("\(out): another writer created it while this export ran; it was left as it is"), "\(stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "the other writer's video")
        #expect(!files(in: photos.path).contains { $0.contains("segue-tmp") })
    }

    @Test("exit codes as documented: a folder, an animated WebP or a text named .jpg is unsupported (2); a damaged image is 1; an animated GIF or PNG plays as a clip")
    func exitCodes() throws {
        let photos = try photoFolder()
        _ = try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x64:d=0.3:r=10", photos.appendingPathComponent("moving.gif").path])
        _ = try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x64:d=0.3:r=10", "-f", "apng", photos.appendingPathComponent("moving.png").path])
        _ = try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x64:d=0.3:r=10", "-c:v", "libwebp", "-loop", "0",
                                photos.appendingPathComponent("moving.webp").path])
        _ = try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x64", "-frames:v", "1", photos.appendingPathComponent("still.gif").path])
        try "Dear reader, this is not a photo.".write(to: photos.appendingPathComponent("letter.jpg"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("album.jpg"), withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: photos.appendingPathComponent("a.jpg"))
        try jpeg.prefix(jpeg.count / 2).write(to: photos.appendingPathComponent("half.jpg"))
        let cases: [(String, Int32, String)] = [
            ("album.jpg", 2, "album.jpg: not an image Segue can read (JPEG, PNG, WebP, ...): it is a folder"),
            ("moving.gif", 0, "segue: wrote"),
            ("moving.png", 0, "segue: wrote"),
            ("moving.webp", 2, "moving.webp: not an image Segue can read (JPEG, PNG, WebP, ...): an animated WebP"),
            ("letter.jpg", 2, "letter.jpg: not an image Segue can read (JPEG, PNG, WebP, ...): its content is no image format"),
            ("half.jpg", 1, "half.jpg: cannot read the image"),
            ("still.gif", 0, "segue: wrote"),
        ]
        for (input, code, message) in cases {
            let r = try run(segueBinary, ["render", "a.jpg", input, "-o", "out.mp4", "--force"] + small, in: photos)
            #expect(r.status == code && r.stderr.contains(message), "\(input): exit \(r.status): \(r.stderr)")
        }
    }

    @Test("a photo whose EXIF block fills its first 20 KB is still a JPEG (as a camera's are), drawn as the same photo without it")
    func bigExif() throws {
        let photos = try photoFolder()
        var jpeg = [UInt8](try Data(contentsOf: photos.appendingPathComponent("a.jpg")))
        // An APP1 segment of 20,000 bytes right after the start of image, before any picture header.
        let body = [UInt8]("Exif\0\0".utf8) + [UInt8](repeating: 0, count: 19_992)
        let length = body.count + 2
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body, at: 2)
        try Data(jpeg).write(to: photos.appendingPathComponent("camera.jpg"))
        let r = try run(segueBinary, ["render", "camera.jpg", "-o", "camera.mp4"] + small, in: photos)
        #expect(r.status == 0, "\(r.stderr)")
        // The same pictures as the photo without the block: the EXIF is skipped, not the photo.
        let plain = try run(segueBinary, ["render", "a.jpg", "-o", "plain.mp4"] + small, in: photos)
        #expect(plain.status == 0, "\(plain.stderr)")
        func frames(_ name: String) throws -> [Substring] {
            try tool("ffmpeg", ["-v", "error", "-i", photos.appendingPathComponent(name).path, "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }
        }
        let camera = try frames("camera.mp4"), photo = try frames("plain.mp4")
        #expect(camera.count > 5 && camera == photo, "\(camera.count) frames")
    }

    @Test("batch shows live progress on a terminal, as render does")
    func batchProgressOnTerminal() throws {
        let photos = try photoFolder()
        try "jobs:\n  - {inputs: [a.jpg, b.png], output: one.mp4}\n  - {inputs: [b.png, a.jpg], output: two.mp4}\n"
            .write(to: photos.appendingPathComponent("jobs.yaml"), atomically: true, encoding: .utf8)
        // `script` gives the command a terminal of its own and copies what it shows.
        let command = ([segueBinary, "batch", "jobs.yaml", "--jobs", "2"] + small).joined(separator: " ")
        let r = try run("/usr/bin/script", ["-qec", command, "/dev/null"], in: photos)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.range(of: "\r\u{1B}\\[2Kbatch: 0/2 jobs done; (one|two)\\.mp4: 1/27 frames", options: .regularExpression) != nil
                && r.stdout.contains("batch: 2/2 jobs done; "), "\(r.stdout.debugDescription)")
        let quiet = try run(segueBinary, ["batch", "jobs.yaml", "--force"] + small, in: photos)
        #expect(!quiet.stderr.contains("batch:"), "no terminal, no live line: \(quiet.stderr)")
    }

    @Test("--set transition.kind on a preset of another kind drops that kind's keys; an unknown key still names its --set")
    func changeKind() throws {
        let photos = try photoFolder()
        let r = try run(segueBinary, ["render", "--preset", "slide", "--set", "transition.kind=crossfade", "a.jpg", "b.png", "-o", "x.mp4"] + small, in: photos)
        #expect(r.status == 0, "\(r.stderr)")
        let bad = try run(segueBinary, ["render", "--preset", "slide", "--set", "transition.kind=crossfade", "--set", "transition.direction=up",
                                        "a.jpg", "-o", "y.mp4"] + small, in: photos)
        #expect(bad.status == 2 && bad.stderr.contains("--set transition.direction=up: unknown key 'transition.direction'"), "\(bad.stderr)")
    }
}
