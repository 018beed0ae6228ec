import Foundation
import Testing

/// A flat picture of `colour`, `width` x `height`, made by FFmpeg.
func flatPicture(_ name: String, colour: String, width: Int = 360, height: Int = 640, in folder: URL) throws {
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=\(width)x\(height):d=1", "-frames:v", "1",
                                folder.appendingPathComponent(name).path])
    #expect(r.status == 0, "\(r.stderr)")
}

/// One PNG as RGBA bytes, with its size.
func rgba(_ png: String) throws -> (bytes: [UInt8], width: Int, height: Int) {
    let probe = try tool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", png])
    let size = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    let raw = png + ".rgba"
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgba", raw])
    #expect(r.status == 0 && size.count == 2, "\(r.stderr)")
    return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), size[0], size[1])
}

/// The RGBA pixels of `count` PNG frames `folder/frame-00000.png`... one after the other, as
/// `rgba` gives each, decoded by one FFmpeg (a process a frame cost seconds a test).
func rgbaFrames(in folder: String, count: Int) throws -> [(bytes: [UInt8], width: Int, height: Int)] {
    let first = folder + "/frame-00000.png"
    let probe = try tool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", first])
    let size = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    try #require(size.count == 2, "\(first): \(probe.stderr)")
    let raw = folder + "/frames.rgba"
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-start_number", "0", "-i", folder + "/frame-%05d.png", "-frames:v", "\(count)",
                                "-f", "rawvideo", "-pix_fmt", "rgba", raw])
    #expect(r.status == 0, "\(r.stderr)")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    let frame = size[0] * size[1] * 4
    try #require(bytes.count == frame * count, "\(bytes.count / max(frame, 1)) frames of \(count)")
    return (0..<count).map { (Array(bytes[$0 * frame..<($0 + 1) * frame]), size[0], size[1]) }
}

/// Where `pango` (a picture of text) lies in `frame` with the least largest difference of any
/// colour level, among the corners `xs` x `ys`.
func bestPlacement(of pango: (bytes: [UInt8], width: Int, height: Int), in frame: (bytes: [UInt8], width: Int, height: Int),
                   xs: Range<Int>, ys: Range<Int>) -> (x: Int, y: Int, largest: Int) {
    var best = (x: 0, y: 0, largest: Int.max)
    for oy in ys where oy >= 0 && oy + pango.height <= frame.height {
        for ox in xs where ox >= 0 && ox + pango.width <= frame.width {
            var largest = 0
            scan: for y in 0..<pango.height {
                for x in 0..<pango.width {
                    for c in 0..<3 {
                        let d = abs(Int(frame.bytes[((oy + y) * frame.width + ox + x) * 4 + c]) - Int(pango.bytes[(y * pango.width + x) * 4 + c]))
                        largest = max(largest, d)
                        if largest >= best.largest { break scan }
                    }
                }
            }
            if largest < best.largest { best = (ox, oy, largest) }
        }
    }
    return best
}

@Suite("Text in stories, as the command line draws it")
struct TextCLITests {
    /// A story of `slides` (YAML list items) on a 360x640 canvas at scale 1, transitions `transition`.
    func story(_ slides: String, transition: String = "stories-cube", extra: String = "", in folder: URL, name: String = "story.yaml") throws {
        try """
            preset: \(transition)
            set: {canvas.size: [360, 640], canvas.scale: 1, transition.duration: 1, hold: 1}
            \(extra)
            slides:
            \(slides)
            """.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test("at rest at 1080x1920, text is Pango's own pixels over the page: as sharp as pango-view draws it")
    func crispAtRest() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", in: folder)
        // 20 points at canvas.scale 3: an em of 60 pixels.
        try story("""
              - image: blue.png
                overlays:
                  - {text: "Crisp Wg", size: 20, at: [0.5, 0.5]}
            """, in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "--size", "1080x1920", "--set", "canvas.scale=3", "--frames", "0", "-o", "frames"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let frame = try rgba(folder.appendingPathComponent("frames/frame-00000.png").path)
        let reference = folder.appendingPathComponent("pango.png").path
        let p = try tool("pango-view", ["-q", "--pixels", "--font", "Noto Sans 60", "--hinting=none", "--hint-metrics=off", "--subpixel-positions",
                                        "--antialias=gray", "--margin=0", "--background=#204080", "--foreground=#ffffff", "-o", reference, "--text", "Crisp Wg"])
        #expect(p.status == 0, "\(p.stderr)")
        let pango = try rgba(reference)
        // Pango's picture, placed where it matches the frame best: every pixel within a few
        // levels (the frame is the same text composited over the same colour).
        let best = bestPlacement(of: pango, in: frame, xs: (frame.width / 2 - 160)..<(frame.width / 2 - 60), ys: (frame.height / 2 - 60)..<(frame.height / 2))
        #expect(best.largest <= 3, "the frame's text differs from pango-view's by up to \(best.largest) levels (best at \(best.x), \(best.y))")
    }

    @Test("text on a turning page turns with it: mid-turn its ink lies on the page and is foreshortened")
    func turnsWithThePage() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("red.png", colour: "red", in: folder)
        try flatPicture("green.png", colour: "0x00a000", in: folder)
        let overlay = """
                overlays:
                  - {text: "TURN", size: 70, weight: bold, color: "#ffffff", at: [0.5, 0.5]}
            """
        try story("  - image: red.png\n\(overlay)\n  - image: green.png", in: folder, name: "text.yaml")
        try story("  - image: red.png\n  - image: green.png", in: folder, name: "plain.yaml")
        // Frame 0 at rest; frame 45 is mid-turn (1 s hold, then 1 s of cube at 30 fps).
        for name in ["text", "plain"] {
            let r = try run(segue, ["render", "--story", "\(name).yaml", "--frames", "0,45", "-o", name], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
        }
        func pixel(_ f: (bytes: [UInt8], width: Int, height: Int), _ x: Int, _ y: Int) -> (Int, Int, Int) {
            let i = (y * f.width + x) * 4
            return (Int(f.bytes[i]), Int(f.bytes[i + 1]), Int(f.bytes[i + 2]))
        }
        func textPixels(_ frame: Int) throws -> (points: [(Int, Int)], plain: (bytes: [UInt8], width: Int, height: Int)) {
            let with = try rgba(folder.appendingPathComponent(String(format: "text/frame-%05d.png", frame)).path)
            let without = try rgba(folder.appendingPathComponent(String(format: "plain/frame-%05d.png", frame)).path)
            var points: [(Int, Int)] = []
            for y in 0..<with.height {
                for x in 0..<with.width {
                    let a = pixel(with, x, y), b = pixel(without, x, y)
                    if abs(a.0 - b.0) + abs(a.1 - b.1) + abs(a.2 - b.2) > 30 { points.append((x, y)) }
                }
            }
            return (points, without)
        }
        let rest = try textPixels(0), turning = try textPixels(45)
        #expect(rest.points.count > 500 && turning.points.count > 200)
        // Every pixel the text changes mid-turn is one where the red page is drawn.
        let offPage = turning.points.filter { x, y in
            let p = pixel(turning.plain, x, y)
            return !(p.0 > 150 && p.1 < 80 && p.2 < 80)
        }
        #expect(offPage.count <= turning.points.count / 100, "\(offPage.count) of \(turning.points.count) text pixels off the red page")
        let width = { (points: [(Int, Int)]) in points.map(\.0).max()! - points.map(\.0).min()! }
        #expect(Double(width(turning.points)) < 0.85 * Double(width(rest.points)), "mid-turn \(width(turning.points)) px wide, at rest \(width(rest.points))")
    }

    @Test("text that fades in changes every frame of a still hold (no frame is repeated while it comes)")
    func fadesIn() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", in: folder)
        try story("""
              - image: blue.png
                overlays:
                  - {text: "Hello", size: 60, at: [0.5, 0.5], in: {kind: fade, duration: 0.5}, start: 0.2}
            """, in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "-o", "story.yuv"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let luma = try meanYUV(folder.appendingPathComponent("story.yuv").path, width: 360, height: 640).map(\.y)
        // The page alone until 0.2 s (frame 6 shows the text at opacity 0), brighter every
        // frame until 0.7 s (frame 21), then steady.
        #expect(Set(luma[0...6]).count == 1)
        #expect(zip(luma[6..<21], luma[7...21]).allSatisfy { $0 < $1 }, "\(luma[0..<24])")
        #expect(Set(luma[21..<30]).count == 1)
    }

    @Test("a font file named by the story is used, the same as the family it holds")
    func fontFile() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", in: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("fonts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf", toPath: folder.appendingPathComponent("fonts/brand.ttf").path)
        var sums: [String: String] = [:]
        for (name, font) in [("file", "fonts/brand.ttf"), ("family", "Noto Serif"), ("sans", "Noto Sans")] {
            try story("  - image: blue.png\n    overlays: [{text: \"Serif or not\", size: 40, font: \"\(font)\"}]", in: folder, name: "\(name).yaml")
            let r = try run(segue, ["render", "--story", "\(name).yaml", "--frames", "0", "-o", "-"], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
            sums[name] = r.stdout.split(separator: "\n").last.map(String.init)
        }
        #expect(sums["file"] == sums["family"] && sums["file"] != sums["sans"], "\(sums)")
    }

    @Test("bad text input: exit 2, the file, line and key named with what was expected, nothing written", arguments: [
        ("style: strng", "'slides[1].overlays[1].style' is 'strng'", "did you mean 'strong'"),
        ("font: Noto Sanz", "'slides[1].overlays[1].font' is 'Noto Sanz'", "Noto Sans"),
        ("font: notafont.ttf", "'slides[1].overlays[1].font'", "a font file"),
        ("markup: true\n        text: \"<b>unclosed\"", "'slides[1].overlays[1].text'", "Pango markup"),
        ("color: \"#zzzzzz\"", "'slides[1].overlays[1].color' is '#zzzzzz'", "#RRGGBB"),
        ("in: zoom", "'slides[1].overlays[1].in' is 'zoom'", "typewriter"),
        ("start: 2\n        end: 1", "'slides[1].overlays[1].end' is 1", "a time after start"),
    ])
    func badInput(line: String, key: String, expected: String) throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", in: folder)
        try "not a font".write(to: folder.appendingPathComponent("notafont.ttf"), atomically: true, encoding: .utf8)
        let text = line.contains("text:") ? "" : "        text: Hello\n"
        try story("  - image: blue.png\n    overlays:\n      - size: 40\n\(text)        \(line)", in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "-o", "out.mp4"], in: folder)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("story story.yaml, line"), "\(r.stderr)")
        #expect(r.stderr.contains(key) && r.stderr.contains(expected), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
    }

    @Test("segue fonts lists fontconfig's families; --text puts words on a plain render in the preset's text style")
    func fontsAndText() throws {
        let segue = try installedAlone(), folder = try photoFolder()
        let fonts = try run(segue, ["fonts"], in: folder)
        #expect(fonts.status == 0)
        let families = fonts.stdout.split(separator: "\n").map(String.init)
        #expect(families.contains("Noto Sans") && families.contains("Noto Color Emoji") && families == families.sorted())
        let arabic = try run(segue, ["fonts", "--matching", "arabic"], in: folder)
        #expect(arabic.stdout.split(separator: "\n").allSatisfy { $0.lowercased().contains("arabic") } && arabic.stdout.contains("Noto Sans Arabic"))

        let small = ["--size", "180x320", "--set", "canvas.scale=0.5", "--frames", "0", "-o", "-"]
        let plain = try run(segue, ["render", "a.jpg"] + small, in: folder)
        let text = try run(segue, ["render", "a.jpg", "--text", "Hello"] + small, in: folder)
        let red = try run(segue, ["render", "a.jpg", "--text", "Hello", "--set", "text.color=#ff0000"] + small, in: folder)
        #expect(plain.status == 0 && text.status == 0 && red.status == 0, "\(text.stderr)\(red.stderr)")
        let sums = [plain, text, red].map { $0.stdout.split(separator: "\n").last.map(String.init) ?? "" }
        #expect(Set(sums).count == 3, "\(sums)")
    }
}

@Suite("Captions from SRT and WebVTT, frame-exact")
struct CaptionCLITests {
    /// Renders a 3 s hold of a flat page with `captions` at 180x320 and 30 fps; each frame's RGBA.
    func frames(_ captions: String, files: [String: String]) throws -> [[UInt8]] {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", width: 180, height: 320, in: folder)
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        try """
            preset: crossfade
            set: {canvas.size: [180, 320], canvas.scale: 1, fps: 30}
            captions: \(captions)
            slides:
              - {image: blue.png, hold: 3}
            """.write(to: folder.appendingPathComponent("story.yaml"), atomically: true, encoding: .utf8)
        let r = try run(segue, ["render", "--story", "story.yaml", "-o", "frames"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        return try pngFrames(folder.appendingPathComponent("frames").path, count: 90, width: 180, height: 320)
    }

    /// The pixels of a frame that are not the page's flat colour.
    func textPixels(_ frame: [UInt8]) -> [(x: Int, r: Int, g: Int, b: Int)] {
        stride(from: 0, to: frame.count, by: 4).compactMap { i in
            let r = Int(frame[i]), g = Int(frame[i + 1]), b = Int(frame[i + 2])
            return abs(r - 0x20) + abs(g - 0x40) + abs(b - 0x80) > 60 ? ((i / 4) % 180, r, g, b) : nil
        }
    }

    @Test("each SRT cue shows exactly on the frames i with start <= i / fps < end")
    func srtFrameExact() throws {
        let srt = """
            1
            00:00:00,100 --> 00:00:00,900
            First

            2
            00:00:01,000 --> 00:00:01,500
            Second

            3
            00:00:01,500 --> 00:00:02,000
            <i>Third</i> &amp; last

            """
        let frames = try frames("{file: talk.srt, size: 24}", files: ["talk.srt": srt])
        let shown = frames.map { !textPixels($0).isEmpty }
        let expected = (0..<90).map { i in (3..<27).contains(i) || (30..<60).contains(i) }
        #expect(shown == expected, "frames with text: \(shown.enumerated().filter(\.element).map(\.offset))")
        // The cue changes at 1.5 s (frame 45), without a frame between.
        #expect(frames[44] != frames[45] && frames[45] == frames[46] && frames[43] == frames[44])
    }

    @Test("WebVTT inline timestamps: the highlighted word changes on the frame of its timestamp")
    func webvttHighlight() throws {
        let vtt = """
            WEBVTT

            00:00.000 --> 00:02.000
            <00:00.000>one <00:00.500>two <00:01.200>three

            """
        let frames = try frames("{file: words.vtt, words: highlight, highlight: \"#ffff00\", size: 16}", files: ["words.vtt": vtt])
        // The highlighted word's place: the mean x of its yellow pixels.
        let place = frames.map { frame -> Int? in
            let yellow = textPixels(frame).filter { $0.r > 200 && $0.g > 200 && $0.b < 90 }
            return yellow.isEmpty ? nil : yellow.map(\.x).reduce(0, +) / yellow.count
        }
        let changes = (1..<90).filter { place[$0] != place[$0 - 1] }
        #expect(changes == [15, 36, 60], "the highlight moves on frames \(changes); places \(place)")
        #expect(place[0]! < place[15]! && place[15]! < place[36]!, "one, two, three from left to right")
        #expect(place[60] == nil, "no caption after 2 s")
    }

    @Test("words: reveal shows the words spoken so far, sharing an untimed cue's time by word length")
    func reveal() throws {
        let srt = "1\n00:00:00,000 --> 00:00:02,000\naa bb cc dd\n"
        let frames = try frames("{file: r.srt, words: reveal, size: 20}", files: ["r.srt": srt])
        let extent = frames.map { frame in textPixels(frame).map(\.x).max() ?? -1 }
        // Four equal words over 2 s: one more every 0.5 s (15 frames).
        let changes = (1..<90).filter { extent[$0] != extent[$0 - 1] }
        #expect(changes == [15, 30, 45, 60], "the text grows on frames \(changes)")
        #expect(extent[0] < extent[15] && extent[15] < extent[30] && extent[30] < extent[45])
    }

    @Test("words: reveal draws a shown word pixel for pixel as words: none does: the first word at 0.5 s, the whole frame at 1.5 s")
    func revealWithoutSeams() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", width: 1080, height: 1920, in: folder)
        try "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<00:00:00.000>AAAA <00:00:01.000>BBBB\n"
            .write(to: folder.appendingPathComponent("talk.vtt"), atomically: true, encoding: .utf8)
        /// Frame `index` (at 30 fps) of the captions drawn with `words`.
        func frame(_ words: String, _ index: Int) throws -> (bytes: [UInt8], width: Int, height: Int) {
            try "preset: crossfade\ncaptions: {file: talk.vtt, words: \(words)}\nslides:\n  - {image: blue.png, hold: 2}\n"
                .write(to: folder.appendingPathComponent("\(words).yaml"), atomically: true, encoding: .utf8)
            let out = "\(words)-\(index)"
            let r = try run(segue, ["render", "--story", "\(words).yaml", "--format", "png", "--frames", "\(index)", "-o", out], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
            return try rgba(folder.appendingPathComponent(out).path + String(format: "/frame-%05d.png", index))
        }
        // At 0.5 s only AAAA shows: the columns its letters fill (bright) are compared whole.
        let (revealed, all) = (try frame("reveal", 15), try frame("none", 15))
        let width = revealed.width, height = revealed.height
        let letters = (0..<width).filter { x in (0..<height).contains { y in revealed.bytes[(y * width + x) * 4] > 200 } }
        let first = try #require(letters.first), last = try #require(letters.last)
        let columns = first...last
        var worst = 0
        for y in 0..<height {
            for x in columns {
                for c in 0..<3 { worst = max(worst, abs(Int(revealed.bytes[(y * width + x) * 4 + c]) - Int(all.bytes[(y * width + x) * 4 + c]))) }
            }
        }
        #expect(columns.count > 100 && worst <= 1, "AAAA differs by up to \(worst)/255 over columns \(columns)")
        // At 1.5 s every word shows: the very frame words: none draws.
        #expect(try frame("reveal", 45).bytes == frame("none", 45).bytes)
    }

    @Test("a caption file that is not one, or a cue that ends before it starts: exit 2 naming the file and the line")
    func badCaptions() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x204080", width: 180, height: 320, in: folder)
        try "1\n00:00:05,000 --> 00:00:03,000\nBackwards\n".write(to: folder.appendingPathComponent("back.srt"), atomically: true, encoding: .utf8)
        try "just some text\nnothing timed\n".write(to: folder.appendingPathComponent("plain.srt"), atomically: true, encoding: .utf8)
        for (file, expected) in [("back.srt", "back.srt, line 2: the cue ends at 00:00:03.000, before it starts at 00:00:05.000"),
                                 ("plain.srt", "not a subtitle file"), ("none.srt", "no such file")] {
            try "preset: crossfade\ncaptions: \(file)\nslides:\n  - {image: blue.png, hold: 1}\n".write(to: folder.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
            let r = try run(segue, ["render", "--story", "s.yaml", "-o", "out.mp4"], in: folder)
            #expect(r.status == 2 && r.stderr.contains("story s.yaml, line 2") && r.stderr.contains(expected), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
            // A wrong cue is not a wrong kind of file.
            #expect(file != "back.srt" || !r.stderr.contains("expected an SRT or WebVTT file"), "\(r.stderr)")
        }
    }
}
