import Foundation
import Testing

/// Pixel (x, y) of an RGBA picture as [r, g, b].
func pixel(_ p: (bytes: [UInt8], width: Int, height: Int), _ x: Int, _ y: Int) -> [Int] {
    (0..<3).map { Int(p.bytes[(y * p.width + x) * 4 + $0]) }
}

/// The start times of the frames of an animated WebP, and one pass's length: its ANMF chunks' durations.
func webpFrameStarts(_ path: String) throws -> (starts: [Double], length: Double) {
    let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var offset = 12, t = 0.0, starts: [Double] = []
    while offset + 8 <= d.count {
        let tag = String(decoding: d[offset..<offset + 4], as: UTF8.self)
        let size = Int(d[offset + 4]) | Int(d[offset + 5]) << 8 | Int(d[offset + 6]) << 16 | Int(d[offset + 7]) << 24
        if tag == "ANMF" {
            let p = offset + 8 + 12
            starts.append(t)
            t += Double(Int(d[p]) | Int(d[p + 1]) << 8 | Int(d[p + 2]) << 16) / 1000
        }
        offset += 8 + size + (size & 1)
    }
    return (starts, t)
}

@Suite("Stickers, logos and fills, as the command line draws them")
struct StickerCLITests {
    func story(_ body: String, size: String = "[360, 640]", in folder: URL) throws {
        try """
            preset: stories-cube
            set: {canvas.size: \(size), canvas.scale: 1, transition.duration: 1, hold: 2}
            \(body)
            """.write(to: folder.appendingPathComponent("story.yaml"), atomically: true, encoding: .utf8)
    }

    /// An anti-aliased white disc on transparency, 200x200, its edge a ramp of alpha.
    func disc(in folder: URL) throws {
        try ffmpegMake("disc.png", ["-f", "lavfi", "-i", "color=white:s=200x200:d=1,format=rgba,geq=r=255:g=255:b=255:a='255*clip(80.5-hypot(X-99.5\\,Y-99.5)\\,0\\,1)'",
                                    "-frames:v", "1"], in: folder)
    }

    @Test("alpha done right: a white anti-aliased sticker over white has no fringe, over black only greys; 50 % alpha mixes exactly")
    func alpha() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try disc(in: folder)
        try flatPicture("white.png", colour: "white", in: folder)
        try flatPicture("black.png", colour: "black", in: folder)
        try flatPicture("blue.png", colour: "0x0000ff", in: folder)
        try ffmpegMake("half.png", ["-f", "lavfi", "-i", "color=red:s=64x64:d=1,format=rgba,geq=r=255:g=0:b=0:a=128", "-frames:v", "1"], in: folder)
        // The disc pops in (scaled by the compositor for its first frames), rotated, at a fraction of a pixel.
        let sticker = "overlays: [{image: disc.png, width: 0.37, at: [0.503, 0.41], rotation: 7, in: {kind: pop, duration: 0.5}}]"
        try story("""
            slides:
              - {image: white.png, \(sticker)}
              - {image: black.png, \(sticker)}
              - {image: blue.png, overlays: [{image: half.png, width: 0.5}]}
            """, in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "--frames", "5,40,90,130,200", "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        for index in [5, 40] {
            let f = try rgba(folder.appendingPathComponent("f/frame-\(String(format: "%05d", index)).png").path)
            let darkest = stride(from: 0, to: f.bytes.count, by: 4).map { min(f.bytes[$0], f.bytes[$0 + 1], f.bytes[$0 + 2]) }.min()!
            #expect(darkest == 255, "frame \(index): a pixel of \(darkest) over white (a dark fringe)")
        }
        for index in [90, 130] {
            let f = try rgba(folder.appendingPathComponent("f/frame-\(String(format: "%05d", index)).png").path)
            var edge = 0
            for i in stride(from: 0, to: f.bytes.count, by: 4) {
                let c = f.bytes[i..<i + 3]
                #expect(c.max()! - c.min()! <= 1, "frame \(index): a coloured pixel \(Array(c)) at the disc's edge over black")
                if c.min()! > 20 && c.max()! < 235 { edge += 1 }
            }
            #expect(edge > 100, "frame \(index): the disc's edge is not anti-aliased (\(edge) grey pixels)")
        }
        // 50 % red (alpha 128) over blue: premultiplied (128, 0, 0, 128) over (0, 0, 255) is (128, 0, 127).
        let mix = try rgba(folder.appendingPathComponent("f/frame-00200.png").path)
        let c = pixel(mix, 180, 320)
        #expect(abs(c[0] - 128) <= 1 && c[1] <= 1 && abs(c[2] - 127) <= 1, "50 % red over blue is \(c)")
    }

    /// Colour names of the frames an animation shows, checked at the video's frames against their own times.
    func checkTiming(_ starts: [Double], length: Double, colours: [[Int]], file: String, end: Double, in folder: URL, segue: String) throws {
        try flatPicture("grey.png", colour: "0x808080", in: folder)
        try story("""
            slides:
              - {image: grey.png, hold: 3, overlays: [{image: \(file), width: 0.5, end: \(end)}]}
            """, in: folder)
        let frames = Array(0..<60)
        let r = try run(segue, ["render", "--story", "story.yaml", "--frames", frames.map(String.init).joined(separator: ","), "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let decoded = try rgbaFrames(in: folder.appendingPathComponent("f").path, count: frames.count)
        for i in frames {
            let t = Double(i) / 30
            let f = decoded[i]
            let shown = pixel(f, 180, 320)
            if t >= end {
                #expect(shown == [128, 128, 128], "\(file), frame \(i): the sticker is still there after its end")
                continue
            }
            let k = starts.lastIndex { $0 <= t.truncatingRemainder(dividingBy: length) + 1e-6 }!
            #expect(zip(shown, colours[k]).allSatisfy { abs($0 - $1) <= 3 }, "\(file), frame \(i) (t = \(t)): shows \(shown), its frame \(k) is \(colours[k])")
        }
    }

    /// Three flat frames, red, green and blue, shown 0.2, 0.5 and 0.3 s: a concat list for FFmpeg.
    func frameList(in folder: URL) throws {
        for (name, colour) in [("r", "red"), ("g", "0x00ff00"), ("b", "blue")] {
            try ffmpegMake("\(name).png", ["-f", "lavfi", "-i", "color=\(colour):s=80x80:d=1", "-frames:v", "1"], in: folder)
        }
        try "file 'r.png'\nduration 0.2\nfile 'g.png'\nduration 0.5\nfile 'b.png'\nduration 0.3\n".write(
            to: folder.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
    }

    @Test("an animated GIF sticker changes at the GIF's own delays in a 30 fps video, loops, and goes at its end")
    func animatedGIF() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try frameList(in: folder)
        try ffmpegMake("anim.gif", ["-f", "concat", "-i", folder.appendingPathComponent("list.txt").path, "-vsync", "vfr", "-loop", "0"], in: folder)
        // Its frames' times as ffprobe reads them.
        let probe = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", folder.appendingPathComponent("anim.gif").path])
        let packets = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count == 2 }
        #expect(packets.count == 3)
        let starts = packets.map { $0[0] }, length = packets.last!.reduce(0, +)
        try checkTiming(starts, length: length, colours: [[255, 0, 0], [0, 255, 0], [0, 0, 255]], file: "anim.gif", end: 1.7, in: folder, segue: segue)
    }

    @Test("an APNG sticker plays at its own frame times too")
    func animatedPNG() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try frameList(in: folder)
        try ffmpegMake("anim.apng", ["-f", "concat", "-i", folder.appendingPathComponent("list.txt").path, "-vsync", "vfr", "-plays", "0", "-f", "apng"], in: folder)
        let probe = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", folder.appendingPathComponent("anim.apng").path])
        let packets = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { !$0.isEmpty }
        #expect(packets.count == 3)
        // The last frame lasts as the file says, or (when it does not say) as long as the one before it.
        let starts = packets.map { $0[0] }
        let last = packets.last!.count > 1 ? packets.last![1] : starts[2] - starts[1]
        try checkTiming(starts, length: starts[2] + last, colours: [[255, 0, 0], [0, 255, 0], [0, 0, 255]], file: "anim.apng", end: 1.6, in: folder, segue: segue)
    }

    @Test("an animated WebP sticker (libwebp) plays at its own frame durations and loops")
    func animatedWebP() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try frameList(in: folder)
        try ffmpegMake("anim.webp", ["-f", "concat", "-i", folder.appendingPathComponent("list.txt").path, "-vsync", "vfr",
                                     "-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0"], in: folder)
        let (starts, length) = try webpFrameStarts(folder.appendingPathComponent("anim.webp").path)
        #expect(starts.count == 3 && length > 0.9)
        try checkTiming(starts, length: length, colours: [[255, 0, 0], [0, 255, 0], [0, 0, 255]], file: "anim.webp", end: 1.9, in: folder, segue: segue)
    }

    @Test("a VP9 WebM sticker with alpha shows its alpha (and a ProRes 4444 MOV); loop: false holds its last frame")
    func webmAlpha() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("blue.png", colour: "0x0000ff", in: folder)
        // Transparent on the left, red on the right, then (after 0.5 s) green on the right.
        try ffmpegMake("alpha.webm", ["-f", "lavfi", "-i", "color=red:s=64x64:d=1:r=10,format=rgba,geq=r='if(lt(T,0.5),255,0)':g='if(lt(T,0.5),0,255)':b=0:a='if(lt(X,32),0,255)'",
                                      "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-auto-alt-ref", "0"], in: folder)
        try story("""
            slides:
              - {image: blue.png, hold: 3, overlays: [{image: alpha.webm, width: 0.5, loop: false}]}
            """, in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "--frames", "3,45", "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let early = try rgba(folder.appendingPathComponent("f/frame-00003.png").path)
        let late = try rgba(folder.appendingPathComponent("f/frame-00045.png").path)
        // (libvpx codes alpha lossily: within a level or two.)
        #expect(zip(pixel(early, 140, 320), [0, 0, 255]).allSatisfy { abs($0 - $1) <= 2 }, "the transparent half covers the page: \(pixel(early, 140, 320))")
        #expect(pixel(early, 220, 320)[0] > 240 && pixel(early, 220, 320)[2] < 15, "the opaque half is not red: \(pixel(early, 220, 320))")
        // 1.5 s is past the 1 s clip: loop: false holds its last (green) frame.
        #expect(pixel(late, 220, 320)[1] > 240 && pixel(late, 220, 320)[0] < 15, "the last frame is not held: \(pixel(late, 220, 320))")
        #expect(zip(pixel(late, 140, 320), [0, 0, 255]).allSatisfy { abs($0 - $1) <= 2 })
        // ProRes 4444 in MOV (yuva444p10le) carries alpha the same way.
        // (Made from the source: FFmpeg's own VP9 decoder would drop the WebM's alpha.)
        try ffmpegMake("alpha.mov", ["-f", "lavfi", "-i", "color=red:s=64x64:d=1:r=10,format=rgba,geq=r=255:g=0:b=0:a='if(lt(X,32),0,255)'", "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"], in: folder)
        try story("""
            slides:
              - {image: blue.png, hold: 3, overlays: [{image: alpha.mov, width: 0.5}]}
            """, in: folder)
        let m = try run(segue, ["render", "--story", "story.yaml", "--frames", "3", "-o", "m"], in: folder)
        #expect(m.status == 0, "\(m.stderr)")
        let mov = try rgba(folder.appendingPathComponent("m/frame-00003.png").path)
        #expect(zip(pixel(mov, 140, 320), [0, 0, 255]).allSatisfy { abs($0 - $1) <= 2 } && pixel(mov, 220, 320)[0] > 240,
                "ProRes 4444: \(pixel(mov, 140, 320)) and \(pixel(mov, 220, 320))")
    }

    @Test("fit: blur puts a landscape photo over a blurred copy of itself; gradient runs between its edges' colours; color over the background")
    func fills() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try ffmpegMake("land.png", ["-f", "lavfi", "-i", "testsrc2=s=640x360:d=1", "-frames:v", "1"], in: folder)
        // Sky over grass, a few white clouds in the sky.
        try ffmpegMake("sky.png", ["-f", "lavfi", "-i", "color=0x3080e0:s=800x450:d=1,geq=r='if(lt(Y,225),if(lt(mod(X,97),6)*lt(Y,30),255,48),40)':g='if(lt(Y,225),if(lt(mod(X,97),6)*lt(Y,30),255,128),160)':b='if(lt(Y,225),if(lt(mod(X,97),6)*lt(Y,30),255,224),60)'",
                                   "-frames:v", "1"], in: folder)
        try story("""
            slides:
              - {image: land.png, fit: blur}
              - {image: land.png, fit: fit}
              - {image: sky.png, fit: gradient}
              - {image: land.png, fit: color, background: "#ff8000"}
            """, size: "[1080, 1920]", in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "--frames", "0,90,180,270", "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let blur = try rgba(folder.appendingPathComponent("f/frame-00000.png").path)
        let fit = try rgba(folder.appendingPathComponent("f/frame-00090.png").path)
        /// Mean squared difference between horizontal neighbours over rows `rows`.
        func roughness(_ p: (bytes: [UInt8], width: Int, height: Int), _ rows: Range<Int>) -> Double {
            var sum = 0.0, n = 0.0
            for y in rows { for x in 0..<(p.width - 1) { let d = Double(p.bytes[(y * p.width + x) * 4 + 1]) - Double(p.bytes[(y * p.width + x + 1) * 4 + 1]); sum += d * d; n += 1 } }
            return sum / n
        }
        let band = 100..<600, photo = 700..<1200
        let bandMean = band.map { y in (0..<1080).map { Int(blur.bytes[(y * 1080 + $0) * 4 + 1]) }.reduce(0, +) }.reduce(0, +) / (band.count * 1080)
        #expect(bandMean > 30, "the band above the photo is dark (\(bandMean)): not a copy of the photo")
        #expect(stride(from: 3, to: blur.bytes.count, by: 4).allSatisfy { blur.bytes[$0] == 255 }, "the frame is not opaque everywhere")
        // Darkened a little: the band's brightest green below the photo's.
        let bandMax = band.map { y in (0..<1080).map { Int(blur.bytes[(y * 1080 + $0) * 4 + 1]) }.max()! }.max()!
        #expect(bandMax < 240 && bandMax > 100, "the band is not a darkened copy: its brightest green is \(bandMax)")
        #expect(roughness(blur, band) * 50 < roughness(blur, photo), "the band is not blurred: \(roughness(blur, band)) against the photo's \(roughness(blur, photo))")
        // The photo itself, fitted, is the same as with fit: fit.
        var largest = 0
        for y in stride(from: 700, to: 1200, by: 7) { for x in 0..<1080 { for c in 0..<3 { largest = max(largest, abs(Int(blur.bytes[(y * 1080 + x) * 4 + c]) - Int(fit.bytes[(y * 1080 + x) * 4 + c]))) } } }
        #expect(largest <= 1, "the photo over its blur differs from the fitted photo by \(largest)")
        #expect(pixel(fit, 540, 200) == [0, 0, 0], "fit: fit leaves the band to the background")
        // The gradient: the sky's blue (not the clouds' white) at the top, the grass's green at the bottom.
        let gradient = try rgba(folder.appendingPathComponent("f/frame-00180.png").path)
        let top = pixel(gradient, 540, 5), bottom = pixel(gradient, 540, 1914), middle = pixel(gradient, 540, 400)
        #expect(zip(top, [48, 128, 224]).allSatisfy { abs($0 - $1) <= 8 }, "the top of the gradient is \(top), not the sky's colour")
        #expect(zip(bottom, [40, 160, 60]).allSatisfy { abs($0 - $1) <= 8 }, "the bottom of the gradient is \(bottom), not the grass's colour")
        #expect(middle[2] < top[2] && middle[2] > bottom[2], "the gradient does not run between them: \(middle)")
        let color = try rgba(folder.appendingPathComponent("f/frame-00270.png").path)
        #expect(pixel(color, 540, 200) == [255, 128, 0])
    }

    @Test("a landscape clip with fit: blur moves its blurred fill with it, and renders the same bytes every time")
    func blurredClip() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try ffmpegMake("land.mp4", ["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p"], in: folder)
        try story("slides:\n  - {clip: land.mp4, fit: blur}", size: "[1080, 1920]", in: folder)
        // At 1080x1920 the backdrop is prepared at 136x240 (an eighth, even), cut from the clip in its own format.
        var sums: [String] = []
        for _ in 0..<2 {
            let r = try run(segue, ["render", "--story", "story.yaml", "--frames", "0,1,2,3,15", "-o", "-"], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
            sums.append(r.stdout)
        }
        #expect(sums[0] == sums[1], "two renders of the same blurred clip differ")
        let lines = sums[0].split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last! }
        #expect(lines.count == 5 && Set(lines).count >= 4, "the frames do not change with the clip: \(lines)")
        let r = try run(segue, ["render", "--story", "story.yaml", "--frames", "0,15", "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let a = try rgba(folder.appendingPathComponent("f/frame-00000.png").path), b = try rgba(folder.appendingPathComponent("f/frame-00015.png").path)
        // The band above the clip changes as the clip does (testsrc2 moves), blurred.
        var changed = 0
        for y in 100..<600 {
            for x in 0..<1080 {
                let at = (y * 1080 + x) * 4 + 1
                if abs(Int(a.bytes[at]) - Int(b.bytes[at])) > 2 { changed += 1 }
            }
        }
        #expect(changed > 1000, "the blurred fill does not move with the clip (\(changed) pixels changed)")
    }

    @Test("a sticker on a slide mid-cube lies inside its page's quad, turned with it")
    func turnsWithThePage() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("red.png", colour: "red", in: folder)
        try flatPicture("blue.png", colour: "blue", in: folder)
        try ffmpegMake("green.png", ["-f", "lavfi", "-i", "color=0x00ff00:s=100x100:d=1", "-frames:v", "1"], in: folder)
        try story("""
            slides:
              - {image: red.png, overlays: [{image: green.png, width: 0.9, at: [0.5, 0.5]}]}
              - {image: blue.png}
            """, in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "--frames", "0,75", "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let atRest = try rgba(folder.appendingPathComponent("f/frame-00000.png").path)
        let isGreen = { (p: [Int]) in p[1] > 200 && p[0] < 60 && p[2] < 60 }
        #expect((0..<640).flatMap { y in (0..<360).filter { isGreen(pixel(atRest, $0, y)) } }.count > 300 * 250, "the sticker at rest")
        // Mid-turn: the sticker's pixels lie on the red page's side of the cube's edge (the
        // blue page starts there), and it is drawn in perspective, its near side taller.
        let f = try rgba(folder.appendingPathComponent("f/frame-00075.png").path)
        var columns: [Int: Int] = [:]
        for y in 0..<f.height {
            let row = (0..<f.width).map { pixel(f, $0, y) }
            let greens = row.indices.filter { isGreen(row[$0]) }
            guard let last = greens.last else { continue }
            for x in greens { columns[x, default: 0] += 1 }
            if let edge = row.indices.first(where: { row[$0][2] > 200 && row[$0][0] < 60 }) {
                #expect(last < edge, "row \(y): the sticker reaches past its page's edge (\(last) >= \(edge))")
            }
        }
        let xs = columns.keys.sorted()
        #expect(xs.count > 40, "mid-turn the sticker is not on screen")
        if xs.count > 40 {
            let near = columns[xs[xs.count - 3]]!, far = columns[xs[2]]!
            #expect(abs(near - far) > 10, "no perspective: the sticker is \(far) px tall at one side, \(near) at the other")
        }
    }

    @Test("--logo puts a picture in the bottom right corner of every frame of a plain render")
    func logo() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("a.png", colour: "black", in: folder)
        try flatPicture("b.png", colour: "black", in: folder)
        try ffmpegMake("logo.png", ["-f", "lavfi", "-i", "color=white:s=100x50:d=1", "-frames:v", "1"], in: folder)
        let r = try run(segue, ["render", "a.png", "b.png", "--size", "360x640", "--set", "canvas.scale=1", "--logo", "logo.png", "--set", "logo.opacity=1",
                                "--frames", "0,70", "-o", "f"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        for index in [0, 70] {
            let f = try rgba(folder.appendingPathComponent("f/frame-\(String(format: "%05d", index)).png").path)
            // A fifth of 360 wide (72 x 36), its corner at 95 % of the width and height.
            #expect(pixel(f, 342 - 36, 608 - 18) == [255, 255, 255], "frame \(index): no logo where it sits")
            #expect(pixel(f, 342 + 3, 608 + 3) == [0, 0, 0] && pixel(f, 342 - 75, 608 - 18) == [0, 0, 0], "frame \(index): the logo is too big")
        }
        // A story's set: logo.image is relative to the story, as its other paths are.
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: folder.appendingPathComponent("logo.png"), to: sub.appendingPathComponent("logo.png"))
        try FileManager.default.moveItem(at: folder.appendingPathComponent("a.png"), to: sub.appendingPathComponent("a.png"))
        try "set: {canvas.size: [360, 640], canvas.scale: 1, logo.image: logo.png, logo.opacity: 1}\nslides:\n  - image: a.png\n"
            .write(to: sub.appendingPathComponent("story.yaml"), atomically: true, encoding: .utf8)
        let s = try run(segue, ["render", "--story", "sub/story.yaml", "--frames", "0", "-o", "g"], in: folder)
        #expect(s.status == 0, "\(s.stderr)")
        let g = try rgba(folder.appendingPathComponent("g/frame-00000.png").path)
        #expect(pixel(g, 342 - 36, 608 - 18) == [255, 255, 255], "the story's logo is not there")
    }

    @Test("--logo marks every video of a batch")
    func logoOnBatch() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("a.png", colour: "black", in: folder)
        try ffmpegMake("logo.png", ["-f", "lavfi", "-i", "color=white:s=100x50:d=1", "-frames:v", "1"], in: folder)
        try """
            jobs:
              - {preset: slide, set: {canvas.size: [360, 640], canvas.scale: 1, hold: 0.5}, inputs: [a.png], output: one}
              - {preset: slide, set: {canvas.size: [360, 640], canvas.scale: 1, hold: 0.5}, slides: [{image: a.png}], output: two}
            """.write(to: folder.appendingPathComponent("batch.yaml"), atomically: true, encoding: .utf8)
        let r = try run(segue, ["batch", "batch.yaml", "--logo", "logo.png", "--set", "logo.opacity=1"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        for output in ["one", "two"] {
            let f = try rgba(folder.appendingPathComponent("\(output)/frame-00000.png").path)
            #expect(pixel(f, 342 - 36, 608 - 18) == [255, 255, 255], "\(output): no logo")
        }
    }

    @Test("bad stickers and fills: exit 2 naming the file, the key and what was expected; a file broken midway: exit 1; nothing written", arguments: [
        ("overlays: [{image: notes.txt}]", "overlays[1].image", "a picture or animation"),
        ("overlays: [{image: gone.png}]", "overlays[1].image", "no such file"),
        ("overlays: [{image: disc.png, in: typewriter}]", "overlays[1].in", "no characters to type"),
        ("overlays: [{image: disc.png, width: 0.2, height: 0.3}]", "overlays[1].height", "not both"),
        ("fit: blurry", "slides[1].fit", "did you mean 'blur'"),
        ("background: \"#12\"", "slides[1].background", "an opaque color"),
    ])
    func badInput(slideKeys: String, key: String, expected: String) throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try disc(in: folder)
        try flatPicture("a.png", colour: "black", in: folder)
        try "not a picture".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        try story("slides:\n  - {image: a.png, \(slideKeys)}", in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "-o", "out.mp4"], in: folder)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("story.yaml") && r.stderr.contains(key) && r.stderr.contains(expected), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
    }

    @Test("an animated sticker whose frames break midway fails the render naming the file (exit 1), nothing written; --logo with no such file, a sticker over --max-image-pixels: exit 2")
    func brokenMidway() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("a.png", colour: "black", in: folder)
        try ffmpegMake("long.webp", ["-f", "lavfi", "-i", "testsrc2=s=120x120:d=1:r=10", "-c:v", "libwebp_anim", "-q:v", "60", "-loop", "0"], in: folder)
        // The sixth frame's picture data scrambled, its chunks whole: the file opens, the first five frames decode, the sixth does not.
        let url = folder.appendingPathComponent("long.webp")
        var d = [UInt8](try Data(contentsOf: url))
        func size(_ at: Int) -> Int { Int(d[at + 4]) | Int(d[at + 5]) << 8 | Int(d[at + 6]) << 16 | Int(d[at + 7]) << 24 }
        var offset = 12, frame = 0
        while offset + 8 <= d.count {
            if String(decoding: d[offset..<offset + 4], as: UTF8.self) == "ANMF" {
                frame += 1
                var p = offset + 24
                while frame == 6 && p < offset + 8 + size(offset) {
                    if String(decoding: d[p..<p + 4], as: UTF8.self) == "VP8 " { for i in (p + 28)..<(p + 8 + size(p)) { d[i] ^= 0x5A } }
                    p += 8 + size(p) + (size(p) & 1)
                }
            }
            offset += 8 + size(offset) + (size(offset) & 1)
        }
        #expect(frame == 10)
        try Data(d).write(to: url)
        try story("slides:\n  - {image: a.png, hold: 3, overlays: [{image: long.webp}]}", in: folder)
        let r = try run(segue, ["render", "--story", "story.yaml", "-o", "out.mp4"], in: folder)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("long.webp") && r.stderr.contains("frame 6"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
        let l = try run(segue, ["render", "a.png", "--logo", "nope.png", "-o", "out.mp4"], in: folder)
        #expect(l.status == 2 && l.stderr.contains("logo.image") && l.stderr.contains("nope.png"), "\(l.stderr)")
        // A sticker over the pixel limit is refused before it is decoded.
        try story("slides:\n  - {image: a.png, overlays: [{image: long.webp}]}", in: folder)
        let big = try run(segue, ["render", "--story", "story.yaml", "--max-image-pixels", "10000", "-o", "out.mp4"], in: folder)
        #expect(big.status == 2 && big.stderr.contains("long.webp") && big.stderr.contains("max-image-pixels"), "\(big.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mp4").path))
    }
}
