import Foundation
import Testing

@Suite("GIF output")
struct GIFTests {
    let job = ["--preset", "stories-cube", "--size", "240x426", "--set", "canvas.scale=0.5", "--set", "hold=0.6"]
    var inputs: [String] { [example("a.jpg"), example("b.png"), example("c.webp")] }

    /// The MD5 of each decoded frame of a file, by FFmpeg.
    func frameDigests(_ path: String) throws -> [String] {
        let r = try tool("ffmpeg", ["-v", "error", "-i", path, "-f", "framemd5", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test("-o out.gif: 15 fps, looping for ever, at most 256 colours, delays that add up to the video, and FFmpeg's own two-pass palette command on the same frames decodes to the same pictures")
    func gifAgainstFFmpeg() throws {
        let folder = temporaryFolder()
        let gif = folder.appendingPathComponent("story.gif").path
        let r = try segue(["render"] + job + inputs + ["-o", gif])
        #expect(r.status == 0, "\(r.stderr)")
        let stream = try probe(gif, stream: "v:0", entries: "codec_name,r_frame_rate,nb_frames")
        #expect(stream["codec_name"] == "gif" && stream["r_frame_rate"] == "15/1", "\(stream)")
        // Loops for ever: the NETSCAPE2.0 extension with a loop count of 0.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gif)))
        let netscape = Array("NETSCAPE2.0".utf8)
        let at = (0..<(bytes.count - netscape.count - 4)).first { Array(bytes[$0..<($0 + netscape.count)]) == netscape }
        #expect(at.map { bytes[$0 + 11] == 3 && bytes[$0 + 12] == 1 && bytes[$0 + 13] == 0 && bytes[$0 + 14] == 0 } == true, "no endless loop")
        // The frame delays (centiseconds) add up to the frames' time at 15 fps.
        let delays = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=duration", "-of", "csv=p=0", gif]).stdout.split(separator: "\n").compactMap { Int($0) }
        let frames = delays.count
        #expect(frames > 30 && abs(delays.reduce(0, +) - frames * 100 / 15) <= 1 && delays.allSatisfy { $0 == 6 || $0 == 7 }, "\(delays)")
        // Colours: at most 256 in any frame.
        let raw = folder.appendingPathComponent("frames.rgb").path
        #expect(try tool("ffmpeg", ["-v", "error", "-i", gif, "-f", "rawvideo", "-pix_fmt", "rgb24", raw]).status == 0)
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = 240 * 426 * 3
        for frame in stride(from: 0, to: pixels.count, by: size * 10) {
            var colours = Set<UInt32>()
            for i in stride(from: frame, to: frame + size, by: 3) { colours.insert(UInt32(pixels[i]) << 16 | UInt32(pixels[i + 1]) << 8 | UInt32(pixels[i + 2])) }
            #expect(colours.count <= 256 && colours.count > 16, "\(colours.count) colours in frame \(frame / size)")
        }
        // The independent reference: the same frames as PNGs, through FFmpeg's palettegen and paletteuse.
        let pngs = folder.appendingPathComponent("frames").path
        #expect(try segue(["render"] + job + inputs + ["--fps", "15", "-o", pngs]).status == 0)
        let palette = folder.appendingPathComponent("palette.png").path, reference = folder.appendingPathComponent("ffmpeg.gif").path
        #expect(try tool("ffmpeg", ["-v", "error", "-y", "-framerate", "15", "-i", pngs + "/frame-%05d.png", "-vf", "palettegen", palette]).status == 0)
        #expect(try tool("ffmpeg", ["-v", "error", "-y", "-framerate", "15", "-i", pngs + "/frame-%05d.png", "-i", palette, "-lavfi", "paletteuse", reference]).status == 0)
        let ours = try frameDigests(gif), theirs = try frameDigests(reference)
        #expect(ours.count == frames && ours == theirs, "\(ours.count) frames; \(zip(ours, theirs).filter { $0 != $1 }.count) differ from FFmpeg's")
    }

    @Test("every frame's delay, the last included, ends where the video's frames do: a GIF's in centiseconds from rounded timestamps, a WebP's in milliseconds, for 2.4, 2.5 and 7 s at 10, 15 and 30 fps")
    func lastFrameEndsTheVideo() throws {
        let folder = temporaryFolder()
        for seconds in [2.4, 2.5, 7.0] {
            for rate in [10, 15, 30] {
                let name = "\(seconds)-\(rate)"
                // Two pictures joined by a 0.4 s crossfade, so that the WebP's frames are not all one.
                let common = ["render", "--preset", "crossfade", example("a.jpg"), example("b.png"), "--size", "90x160", "--set", "canvas.scale=0.25",
                              "--set", "hold=\((seconds - 0.4) / 2)", "--set", "transition.duration=0.4", "--fps", "\(rate)"]
                let gif = folder.appendingPathComponent(name + ".gif").path, webp = folder.appendingPathComponent(name + ".webp").path
                for out in [gif, webp] {
                    let r = try segue(common + ["-o", out])
                    #expect(r.status == 0, "\(name): \(r.stderr)")
                }
                // The frames the timeline has: seconds times the rate, rounded.
                let frames = Int((seconds * Double(rate)).rounded())
                let delays = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=duration", "-of", "csv=p=0", gif]).stdout.split(separator: "\n").compactMap { Int($0) }
                let centiseconds = { (frame: Int) in Int((Double(frame * 100) / Double(rate)).rounded()) }
                #expect(delays == (0..<frames).map { centiseconds($0 + 1) - centiseconds($0) }, "\(name): \(delays)")
                // Identical frames are merged into one in a WebP: the whole pass is checked.
                let (starts, length) = try webpFrameStarts(webp)
                #expect(starts.count > 2, "\(name): \(starts.count) frames")
                #expect(Int((length * 1000).rounded()) == frames * 1000 / rate, "\(name): \(length) s")
            }
        }
    }

    @Test("gif.loop, gif.palette and gif.dither change what they say; --fps sets the delays; --frames is refused for a GIF")
    func gifSettings() throws {
        let folder = temporaryFolder()
        func render(_ name: String, _ extra: [String]) throws -> String {
            let out = folder.appendingPathComponent(name + ".gif").path
            let r = try segue(["render"] + job + inputs + extra + ["-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            return out
        }
        let once = try render("once", ["--set", "gif.loop=-1"])
        #expect(!(try Data(contentsOf: URL(fileURLWithPath: once))).contains(Data("NETSCAPE2.0".utf8)), "gif.loop -1 plays once")
        let plain = try frameDigests(try render("plain", []))
        for (name, extra) in [("diff", ["--set", "gif.palette=diff"]), ("frame", ["--set", "gif.palette=frame"]), ("flat", ["--set", "gif.dither=none"])] {
            let other = try frameDigests(try render(name, extra))
            #expect(other.count == plain.count && other != plain, "\(name): \(other.count) frames")
        }
        let ten = try render("ten", ["--fps", "10"])
        let delays = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=duration", "-of", "csv=p=0", ten]).stdout.split(separator: "\n")
        #expect(!delays.isEmpty && delays.allSatisfy { $0 == "10" }, "\(delays)")
        // --resume keeps a GIF made from the same job and makes it again when a gif key changes.
        let resumed = folder.appendingPathComponent("resumed.gif").path
        #expect(try segue(["render"] + job + inputs + ["--resume", "-o", resumed]).status == 0)
        let kept = try segue(["render"] + job + inputs + ["--resume", "-o", resumed])
        #expect(kept.status == 0 && kept.stderr.contains("kept"), "\(kept.stderr)")
        let remade = try segue(["render"] + job + inputs + ["--resume", "--set", "gif.loop=2", "-o", resumed])
        #expect(remade.status == 0 && remade.stderr.contains("wrote"), "\(remade.stderr)")
        let frames = try segue(["render"] + job + inputs + ["--frames", "0-3", "-o", folder.appendingPathComponent("x.gif").path])
        #expect(frames.status == 2 && frames.stderr.contains("GIF"), "\(frames.stderr)")
    }

    @Test("a .gif job of a batch, a template's .gif row and a story's GIF are 15 fps unless the job or the story sets a rate")
    func gifRateEverywhere() throws {
        let folder = temporaryFolder()
        let manifest = folder.appendingPathComponent("batch.yaml").path
        try """
            jobs:
              - inputs: [\(example("a.jpg")), \(example("b.png"))]
                output: plain.gif
                set: {canvas.size: [120, 214], canvas.scale: 0.25, hold: 0.4, transition.duration: 0.2}
              - inputs: [\(example("a.jpg")), \(example("b.png"))]
                output: ten.gif
                set: {canvas.size: [120, 214], canvas.scale: 0.25, hold: 0.4, transition.duration: 0.2, fps: 10}
              - inputs: [\(example("a.jpg")), \(example("b.png"))]
                output: plain.mp4
                set: {canvas.size: [120, 214], canvas.scale: 0.25, hold: 0.4, transition.duration: 0.2}
            """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let r = try segue(["batch", manifest])
        #expect(r.status == 0, "\(r.stderr)")
        func rate(_ name: String) throws -> String? { try probe(folder.appendingPathComponent(name).path, stream: "v:0", entries: "r_frame_rate")["r_frame_rate"] }
        #expect(try rate("plain.gif") == "15/1")
        #expect(try rate("ten.gif") == "10/1")
        #expect(try rate("plain.mp4") == "30/1")
        // A story that gives its own rate keeps it for a GIF: 12 fps is delays of 8 and 9 cs
        // (ffprobe calls such a GIF 12000/1001), where 15 fps would be 6 and 7.
        let story = folder.appendingPathComponent("story.yaml").path
        try "set: {fps: 12, canvas.size: [120, 214], canvas.scale: 0.25, hold: 0.4}\nslides:\n  - image: \(example("a.jpg"))\n  - image: \(example("b.png"))\n"
            .write(toFile: story, atomically: true, encoding: .utf8)
        let twelve = folder.appendingPathComponent("twelve.gif").path
        #expect(try segue(["render", "--story", story, "-o", twelve]).status == 0)
        let delays = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=duration", "-of", "csv=p=0", twelve]).stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(delays.count > 8 && delays.allSatisfy { $0 == 8 || $0 == 9 }, "\(delays)")
    }
}
