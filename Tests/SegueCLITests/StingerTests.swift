import Foundation
import Testing

/// Stingers as the command line draws them: a generated alpha clip (a moving, anti-aliased
/// white disc over transparency, with a tone) over a cut at 0.4 s between a red page and a
/// blue one, in ProRes 4444 and VP9 with alpha.
@Suite("Stingers: a clip with alpha over the cut")
struct StingerTests {
    /// The stinger: 1 s at 30 fps, 90x160, a disc of radius 20 moving right, an 880 Hz tone.
    static func stinger(_ name: String, codec: [String], in folder: URL) throws -> String {
        try ffmpegMake(name, ["-f", "lavfi", "-i",
                              "color=c=white:s=90x160:r=30:d=1,format=rgba,geq=r=255:g=255:b=255:a='clip(255*(20.5-hypot(X-(10+70*T)\\,Y-80))\\,0\\,255)'",
                              "-f", "lavfi", "-i", "sine=f=880:d=1:sample_rate=48000"] + codec + ["-shortest"], in: folder)
    }

    func story(_ transition: String, in folder: URL, music: Bool = false) throws -> String {
        let path = folder.appendingPathComponent("story.yaml").path
        try """
            \(music ? "audio: {file: music.wav}" : "")
            set: {canvas.size: [90, 160], canvas.scale: 0.25, fps: 30}
            slides:
              - {image: red.png, hold: 0.5, transition: \(transition)}
              - {image: blue.png, hold: 0.5}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The 60 frames of the story of red and blue joined by `transition`, and the two pages' colours.
    func rendered(_ transition: String, in folder: URL) throws -> (frames: [(bytes: [UInt8], width: Int, height: Int)], red: [Int], blue: [Int]) {
        let out = folder.appendingPathComponent("frames").path
        let run = try segue("render", "--story", try story(transition, in: folder), "-o", out)
        try #require(run.status == 0, "\(run.stderr)")
        let frames = try rgbaFrames(in: out, count: 60)
        return (frames, pixel(frames[0], 45, 80), pixel(frames[59], 45, 80))
    }

    func pages(in folder: URL) throws {
        try flatPicture("red.png", colour: "red", width: 90, height: 160, in: folder)
        try flatPicture("blue.png", colour: "blue", width: 90, height: 160, in: folder)
    }

    @Test("the outgoing page shows under it until the cut, the incoming one after; the disc's edge has no dark fringe",
          arguments: [("sting.mov", ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le", "-c:a", "aac"]),
                      ("sting.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-c:a", "libopus"]),
                      ("sting", ["-an"])])
    func overTheCut(name: String, codec: [String]) throws {
        let folder = temporaryFolder()
        try pages(in: folder)
        if name == "sting" {
            // A folder of PNGs, one a frame.
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
            _ = try Self.stinger("sting/%04d.png", codec: codec, in: folder)
        } else {
            _ = try Self.stinger(name, codec: codec, in: folder)
        }
        // 0.5 s hold (frames 0-14), the stinger's 1 s (15-44), the cut at 0.4 s into it (frame 27), a 0.5 s hold.
        let (frames, red, blue) = try rendered("{kind: stinger, clip: \(name), cut: 0.4}", in: folder)
        #expect(red[0] > 240 && red[2] < 10 && blue[2] > 240 && blue[0] < 10, "\(red) \(blue)")
        for (index, frame) in frames.enumerated() {
            let incoming = index >= 27
            // The top right corner, where the stinger is transparent throughout.
            #expect(pixel(frame, 85, 5) == (incoming ? blue : red), "frame \(index): \(pixel(frame, 85, 5))")
            // White over red keeps red's red, white over blue blue's blue, at every pixel of the
            // disc's anti-aliased edge: a dark fringe would not.
            let channel = incoming ? 2 : 0, page = incoming ? blue[2] : red[0]
            let darkest = stride(from: channel, to: frame.bytes.count, by: 4).map { Int(frame.bytes[$0]) }.min()!
            #expect(darkest >= page - 1, "frame \(index): a channel of \(darkest) where the page's is \(page)")
        }
        // The disc shows during the stinger and moves: white at its centre, not after its end.
        #expect(pixel(frames[15], 10, 80).allSatisfy { $0 > 245 } && pixel(frames[30], 45, 80).allSatisfy { $0 > 245 },
                "\(pixel(frames[15], 10, 80)) \(pixel(frames[30], 45, 80))")
        #expect(pixel(frames[50], 80, 80) == blue)
    }

    @Test("with a track matte, the incoming page shows where the matte is white, as it plays")
    func trackMatte() throws {
        let folder = temporaryFolder()
        try pages(in: folder)
        _ = try Self.stinger("sting.webm", codec: ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-c:a", "libopus"], in: folder)
        // White sweeps from the left edge to the right over 0.9 s.
        try ffmpegMake("matte.mp4", ["-f", "lavfi", "-i", "color=c=black:s=90x160:r=30:d=1,format=gray,geq=lum='255*lt(X\\,100*T)'",
                                     "-c:v", "libx264", "-pix_fmt", "yuv420p"], in: folder)
        let (frames, red, blue) = try rendered("{kind: stinger, clip: sting.webm, matte: matte.mp4}", in: folder)
        // Within the encoded matte's rounding of white and black.
        func near(_ a: [Int], _ b: [Int]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= 3 } }
        // 0.4 s into the stinger (frame 27) white has reached x = 40: blue left of it, red right.
        #expect(near(pixel(frames[27], 20, 5), blue) && near(pixel(frames[27], 80, 5), red), "\(pixel(frames[27], 20, 5)) \(pixel(frames[27], 80, 5))")
        #expect(near(pixel(frames[18], 80, 5), red) && near(pixel(frames[44], 80, 5), blue), "\(pixel(frames[18], 80, 5)) \(pixel(frames[44], 80, 5))")
    }

    @Test("its tone is in the mix, and the music is ducked under it")
    func sound() throws {
        let folder = temporaryFolder()
        try pages(in: folder)
        _ = try Self.stinger("sting.mov", codec: ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le", "-c:a", "aac"], in: folder)
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=220:d=3:sample_rate=48000", folder.appendingPathComponent("music.wav").path])
        let story = try story("{kind: stinger, clip: sting.mov, cut: 0.4, audio: true}", in: folder, music: true)
        let out = folder.appendingPathComponent("out.mp4").path
        let run = try segue("render", "--story", story, "-o", out)
        try #require(run.status == 0, "\(run.stderr)")
        let raw = folder.appendingPathComponent("mix.f32").path
        try ffmpeg(["-i", out, "-f", "f32le", "-ac", "1", "-ar", "8000", raw])
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        /// The amplitude of `frequency` in the 0.2 s from `start` (Goertzel).
        func level(_ frequency: Double, at start: Double) -> Double {
            let from = Int(start * 8000), count = 1600, k = 2 * cos(2 * Double.pi * frequency / 8000)
            var s1 = 0.0, s2 = 0.0
            for i in from..<min(samples.count, from + count) {
                let s = Double(samples[i]) + k * s1 - s2
                s2 = s1
                s1 = s
            }
            return (s1 * s1 + s2 * s2 - k * s1 * s2).squareRoot() / Double(count) * 2
        }
        // The stinger plays from 0.5 s to 1.5 s.
        #expect(level(880, at: 0.9) > 10 * level(880, at: 0.1) && level(880, at: 0.9) > 10 * level(880, at: 1.8),
                "880 Hz: \(level(880, at: 0.1)) before, \(level(880, at: 0.9)) during, \(level(880, at: 1.8)) after")
        #expect(level(220, at: 1.0) < 0.5 * level(220, at: 0.1), "the music: \(level(220, at: 0.1)) before, \(level(220, at: 1.0)) under the stinger")
    }

    @Test("a stinger without alpha or past its end, or a missing one, exits 2 naming the file and key, and writes nothing")
    func refusals() throws {
        let folder = temporaryFolder()
        try pages(in: folder)
        _ = try testClip("opaque.mp4", seconds: 1, size: "90x160", in: folder)
        _ = try Self.stinger("sting.webm", codec: ["-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-c:a", "libopus"], in: folder)
        for (transition, key, says) in [
            ("{kind: stinger, clip: opaque.mp4}", "transition.clip", "opaque.mp4"),
            ("{kind: stinger, clip: sting.webm, cut: 1.5}", "transition.cut", "lasts 1.00 s"),
            ("{kind: stinger, clip: gone.mov}", "transition.clip", "gone.mov"),
            ("{kind: stinger}", "transition.clip", "clip"),
        ] {
            let story = try story(transition, in: folder)
            let out = folder.appendingPathComponent("out.mp4").path
            let run = try segue("render", "--story", story, "-o", out)
            #expect(run.status == 2 && run.stderr.contains(key) && run.stderr.contains(says) && run.stderr.contains("story.yaml"),
                    "\(transition): \(run.status) \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
