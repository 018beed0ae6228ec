import Foundation
import Testing

/// Makes a clip with FFmpeg from lavfi sources: `ffmpeg -f lavfi -i SOURCE OPTIONS… NAME`.
func makeClip(_ name: String, _ source: String, _ options: [String] = [], in folder: URL) throws -> String {
    let path = folder.appendingPathComponent(name).path
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", source] + options + [path])
    #expect(r.status == 0, "\(r.stderr)")
    return path
}

/// A clip whose frame k is a flat grey of level 16 + 6k (lossless H.264), `seconds` long at
/// `rate`; `filters` follow in the source's chain.
func levelClip(_ name: String, rate: String, seconds: Double, filters: String = "", extra: [String] = [], in folder: URL) throws -> String {
    try makeClip(name, "color=c=black:s=64x64:r=\(rate):d=\(seconds),format=gray,geq=lum='16+6*N'" + filters,
                 extra + ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv444p"], in: folder)
}

/// The frame number of a level clip a pixel shows.
func level(_ value: UInt8) -> Int { Int((Double(value) - 16) / 6 + 0.5) }

/// Every frame of a folder of PNG frames as RGBA bytes, in order.
func pngFrames(_ folder: String, count: Int, width: Int, height: Int) throws -> [[UInt8]] {
    let raw = folder + ".rgba"
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-framerate", "30", "-i", folder + "/frame-%05d.png", "-f", "rawvideo", "-pix_fmt", "rgba", raw])
    #expect(r.status == 0, "\(r.stderr)")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    let size = width * height * 4
    #expect(bytes.count == count * size, "\(bytes.count / size) frames, expected \(count)")
    return (0..<(bytes.count / size)).map { Array(bytes[$0 * size..<($0 + 1) * size]) }
}

/// The timestamps of a clip's frames, as ffprobe reads them.
func frameTimes(_ clip: String) throws -> [Double] {
    let r = try tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", clip])
    return r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }
}

@Suite("Video clips as slides")
struct ClipTests {
    let canvas = "set: {canvas.size: [90, 160], canvas.scale: 0.25}"

    /// Renders a story file's text to PNG frames, returning the folder.
    func renderStory(_ text: String, in folder: URL, name: String = "frames") throws -> String {
        let story = folder.appendingPathComponent("\(name).yaml")
        try text.write(to: story, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent(name).path
        let r = try segue(["render", "--story", story.path, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test("a 24 fps clip in a 30 fps story shows at each frame the clip frame due then, from the start of its incoming transition, through both transitions")
    func rates() throws {
        let folder = temporaryFolder()
        _ = try levelClip("levels.mp4", rate: "24", seconds: 1.5, in: folder)
        let black = try makeClip("black.png", "color=c=black:s=64x64", ["-frames:v", "1"], in: folder)
        let frames = try renderStory("""
            preset: crossfade
            \(canvas)
            slides:
              - image: \(example("a.jpg"))
                hold: 0.5
                transition: {kind: slide, duration: 0.5}
              - clip: levels.mp4
                transition: {kind: crossfade, duration: 0.5, curve: linear}
              - image: \(black)
                hold: 0.5
            """, in: folder)
        // On screen from 0.5 s (its incoming slide) for its 1.5 s: hold 0.5 s, then a 0.5 s fade to black.
        let all = try pngFrames(frames, count: 75, width: 90, height: 160)
        let center = (80 * 90 + 45) * 4
        for n in 30..<45 {
            let expected = Int((Double(n) / 30 - 0.5) * 24 + 1e-9)
            #expect(level(all[n][center]) == expected, "frame \(n): level \(all[n][center]) is clip frame \(level(all[n][center])), expected \(expected)")
        }
        // Fading out, the clip still plays: the pixel is (1 - p) of the clip frame due.
        for n in 45..<53 {
            let p = (Double(n) / 30 - 1.5) / 0.5
            let expected = Int((Double(n) / 30 - 0.5) * 24 + 1e-9)
            let unfaded = Double(all[n][center]) / (1 - p)
            #expect(abs(unfaded - Double(16 + 6 * expected)) <= 3 / (1 - p) + 1, "frame \(n): \(all[n][center]) at p \(p), expected clip frame \(expected)")
        }
        // Sliding in (frame 29, almost all in), it already plays: clip time 0 is the transition's start.
        #expect(level(all[29][center]) == Int((29.0 / 30 - 0.5) * 24 + 1e-9), "frame 29 shows \(level(all[29][center]))")
    }

    @Test("a clip drawn at a width that is not a multiple of 8 (180 here) shows its last pixels of each row, the same on every run")
    func rowEnds() throws {
        let folder = temporaryFolder()
        _ = try makeClip("levels.mp4", "color=c=black:s=64x64:r=30:d=1,format=gray,geq=lum='16+6*N'",
                         ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"], in: folder)
        let story = "preset: crossfade\nset: {canvas.size: [180, 320], canvas.scale: 0.5}\nslides:\n  - clip: levels.mp4\n"
        let frames = try renderStory(story, in: folder)
        // A flat clip: the last four pixels of every row are the level of the rest of it
        // (libswscale's fast routine left them unwritten, showing what the memory held).
        for (n, frame) in try pngFrames(frames, count: 30, width: 180, height: 320).enumerated() {
            let worst = (0..<320).map { y in (176..<180).map { x in abs(Int(frame[(y * 180 + x) * 4]) - Int(frame[(y * 180 + 90) * 4])) }.max()! }.max()!
            #expect(worst <= 1, "frame \(n): a row's last pixels are \(worst) levels off the rest")
        }
        let file = folder.appendingPathComponent("frames.yaml").path
        let runs = try (0..<4).map { _ in try segue(["render", "--story", file, "--threads", "2", "-o", "-"]).stdout }
        #expect(Set(runs).count == 1 && runs[0].contains("0,         29,"), "framemd5 differs between runs")
    }

    @Test("a variable-frame-rate clip: each output frame shows the frame with the greatest timestamp at or before its time")
    func variableRate() throws {
        let folder = temporaryFolder()
        // Frame N at N² × 5 ms: 0, 5, 20, 45, ... ms, ever further apart.
        let clip = try levelClip("vfr.mp4", rate: "30", seconds: 0.7, filters: ",settb=1/1000,setpts='N*N*5'",
                                 extra: ["-fps_mode", "passthrough", "-video_track_timescale", "1000"], in: folder)
        let times = try frameTimes(clip)
        #expect(times.count == 21 && times.indices.allSatisfy { abs(times[$0] - Double($0 * $0) * 0.005) < 1e-6 }, "\(times)")
        let frames = try renderStory("""
            preset: crossfade
            \(canvas)
            slides:
              - clip: vfr.mp4
                hold: 2.2
            """, in: folder)
        let all = try pngFrames(frames, count: 66, width: 90, height: 160)
        let center = (80 * 90 + 45) * 4
        for n in 0..<66 {
            let t = Double(n) / 30
            let expected = times.lastIndex { $0 <= t + 1e-6 } ?? 0
            #expect(level(all[n][center]) == expected, "frame \(n) at \(t) s shows clip frame \(level(all[n][center])), expected \(expected)")
        }
    }

    @Test("a trimmed clip (start with duration, or end) plays its part, seeking into a clip with key frames every 12, also under Ken Burns motion")
    func trimmed() throws {
        let folder = temporaryFolder()
        _ = try levelClip("long.mp4", rate: "24", seconds: 1.5, extra: ["-g", "12"], in: folder)
        // The third moves (Ken Burns): a flat frame shows its level under any zoom.
        for trim in ["start: 0.6\n    duration: 0.5", "start: 0.6\n    end: 1.1", "start: 0.6\n    end: 1.1\n    motion: in"] {
            let frames = try renderStory("""
                preset: crossfade
                \(canvas)
                slides:
                  - clip: long.mp4
                    \(trim)
                """, in: folder, name: "trim\(trim.count)")
            let all = try pngFrames(frames, count: 15, width: 90, height: 160)
            for n in 0..<15 {
                let expected = Int((0.6 + Double(n) / 30) * 24 + 1e-9)
                #expect(level(all[n][(80 * 90 + 45) * 4]) == expected, "\(trim): frame \(n) shows \(level(all[n][(80 * 90 + 45) * 4])), expected \(expected)")
            }
        }
    }

    @Test("a phone clip stored turned, with a 90° display matrix, comes out upright (as FFmpeg's own autorotation shows it)")
    func displayMatrix() throws {
        let folder = temporaryFolder()
        let upright = try makeClip("upright.mp4", "testsrc2=s=64x96:r=24:d=1", ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv444p"], in: folder)
        let stored = folder.appendingPathComponent("stored.mp4").path
        #expect(try tool("ffmpeg", ["-v", "error", "-y", "-i", upright, "-vf", "transpose=cclock", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv444p", stored]).status == 0)
        let phone = folder.appendingPathComponent("phone.mp4").path
        #expect(try tool("ffmpeg", ["-v", "error", "-y", "-i", stored, "-c", "copy", "-metadata:s:v:0", "rotate=270", phone]).status == 0)
        let rotation = try tool("ffprobe", ["-v", "error", "-show_entries", "stream_side_data=rotation", "-of", "csv=p=0", phone])
        #expect(rotation.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "-90", "display matrix rotation: \(rotation.stdout)")
        // Every frame of the second it plays: each new clip picture is turned into the memory
        // of one no longer shown, so a picture reused too early would show here.
        var outputs: [[UInt8]] = []
        for clip in [upright, phone] {
            let out = folder.appendingPathComponent(URL(fileURLWithPath: clip).deletingPathExtension().lastPathComponent + "-frames").path
            let r = try segue(["render", "--preset", "crossfade", "--size", "64x96", "--set", "canvas.scale=0.25", clip, "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            let raw = out + ".rgba"
            #expect(try tool("ffmpeg", ["-v", "error", "-i", out + "/frame-%05d.png", "-f", "rawvideo", "-pix_fmt", "rgba", raw]).status == 0)
            outputs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
        }
        let frame = 64 * 96 * 4
        #expect(outputs[0].count == 30 * frame, "\(outputs[0].count / frame) frames")
        let largest = zip(outputs[0], outputs[1]).map { abs(Int($0) - Int($1)) }.max() ?? 999
        #expect(outputs[0].count == outputs[1].count && largest <= 2, "largest difference \(largest)")
        #expect(Set(outputs[0][(6 * frame)..<(7 * frame)]).count > 8, "the frame is a picture, not a flat colour")
        #expect(outputs[0][(6 * frame)..<(7 * frame)] != outputs[0][(7 * frame)..<(8 * frame)], "the clip plays")
    }

    @Test("a clip that fills the frame as it is reaches the encoder as decoded (filled from a wider one: as FFmpeg crops and scales it), byte for byte; one in another YUV matrix, or under an overlay, is drawn",
          arguments: [("as-is", "90x160", "bt709", false, ""), ("filled", "640x320", "bt709", false, "crop=180:320:230:0,scale=90:160:flags=bicubic+bitexact"),
                      ("bt601", "90x160", "bt470bg", false, ""), ("overlay", "90x160", "bt709", true, "")])
    func copiedAsDecoded(name: String, size: String, matrix: String, overlay: Bool, filter: String) throws {
        let folder = temporaryFolder()
        let clip = try makeClip("\(name).mp4", "testsrc2=s=\(size):r=30:d=0.5", ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
                                "-colorspace", matrix, "-color_primaries", matrix == "bt709" ? "bt709" : "bt470bg", "-color_range", "tv"], in: folder)
        let story = folder.appendingPathComponent("\(name).yaml")
        try """
            preset: crossfade
            \(canvas)
            slides:
              - clip: \(clip)
            \(overlay ? "    overlays: [{text: \"Hi\", size: 40, color: \"#ff0000\"}]" : "")
            """.write(to: story, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("\(name).yuv").path
        let r = try segue(["render", "--story", story.path, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        // FFmpeg's own decoding (and, for the wide clip, its crop and bit-exact bicubic scale).
        let decoded = folder.appendingPathComponent("\(name)-decoded.yuv").path
        let d = try tool("ffmpeg", ["-v", "error", "-y", "-i", clip] + (filter.isEmpty ? [] : ["-vf", filter]) + ["-f", "rawvideo", "-pix_fmt", "yuv420p", decoded])
        #expect(d.status == 0, "\(d.stderr)")
        let got = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))), want = [UInt8](try Data(contentsOf: URL(fileURLWithPath: decoded)))
        try #require(got.count == 15 * 90 * 160 * 3 / 2 && want.count == got.count, "\(got.count) and \(want.count) bytes")
        let differing = zip(got, want).filter { $0 != $1 }.count
        let copied = name == "as-is" || name == "filled"
        #expect(r.stderr.contains("15 copied from clips") == copied, "\(r.stderr)")
        if copied {
            #expect(differing == 0, "\(differing) bytes differ from FFmpeg's")
        } else if overlay {
            #expect(differing > 0, "the frames are the clip's as decoded, without the overlay")
        } else {
            // BT.601 colours are converted to the video's BT.709.
            #expect(differing > got.count / 20, "only \(differing) bytes differ from the decoded clip's")
        }
    }

    @Test("a clip drawn at another size looks as FFmpeg's own crop and bicubic scale show it: a wide clip filled into the page, a small one enlarged",
          arguments: [("wide", "640x320", "crop=180:320:230:0,"), ("small", "36x64", "")])
    func scaledAsFFmpegScales(name: String, size: String, crop: String) throws {
        let folder = temporaryFolder()
        let clip = try makeClip("\(name).mp4", "testsrc2=s=\(size):r=30:d=0.2", ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"], in: folder)
        let out = folder.appendingPathComponent("\(name)-frames").path
        let r = try segue(["render", "--preset", "crossfade", "--size", "90x160", "--set", "canvas.scale=0.25", "--set", "fit=fill", clip, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let got = try pngFrames(out, count: 6, width: 90, height: 160)
        let reference = folder.appendingPathComponent("\(name)-reference.rgba").path
        let f = try tool("ffmpeg", ["-v", "error", "-y", "-i", clip, "-vf", "\(crop)scale=90:160:flags=bicubic+bitexact", "-frames:v", "1",
                                    "-f", "rawvideo", "-pix_fmt", "rgba", reference])
        #expect(f.status == 0, "\(f.stderr)")
        let want = [UInt8](try Data(contentsOf: URL(fileURLWithPath: reference)))
        try #require(want.count == 90 * 160 * 4 && !got.isEmpty)
        let differences = zip(got[0], want).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(mean < 2, "mean difference \(mean) levels from FFmpeg's")
        #expect(Set(got[0]).count > 20, "the frame is a picture, not a flat colour")
    }

    @Test("audio: true mixes the clip's sound in where the clip plays, with its volume; without it the clip is silent")
    func clipSound() throws {
        let folder = temporaryFolder()
        _ = try makeClip("voice.mp4", "testsrc2=s=64x64:r=30:d=2", ["-f", "lavfi", "-i", "sine=frequency=1000:duration=2",
                                                                     "-c:v", "libx264", "-c:a", "aac", "-shortest"], in: folder)
        func story(_ extra: String, name: String) throws -> String {
            let text = """
                preset: crossfade
                set: {canvas.size: [90, 160], canvas.scale: 0.25, transition.duration: 0}
                slides:
                  - image: \(example("a.jpg"))
                    hold: 1
                    transition: cut
                  - clip: voice.mp4
                    transition: cut\(extra)
                  - image: \(example("b.png"))
                    hold: 1
                """
            let file = folder.appendingPathComponent(name + ".yaml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent(name + ".mp4").path
            let r = try segue(["render", "--story", file.path, "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            return out
        }
        let loud = try samples(try story("\n    audio: true", name: "loud"))
        let quiet = try samples(try story("\n    audio: true\n    volume: 0.5", name: "quiet"))
        #expect(abs(Double(loud.count) / 48000 - 4) < 0.03, "\(loud.count) samples")
        let inside = rms(loud, from: 1.1, to: 2.9), before = rms(loud, from: 0, to: 0.95), after = rms(loud, from: 3.05, to: 4)
        // FFmpeg's sine source has an amplitude of 1/8: an RMS of 0.088.
        #expect(abs(inside - 0.125 / 2.squareRoot()) < 0.01 && before < 0.001 && after < 0.001, "rms before \(before), during \(inside), after \(after)")
        let ratio = rms(quiet, from: 1.1, to: 2.9) / inside
        #expect(abs(ratio - 0.5) < 0.03, "volume 0.5 gives \(ratio) of the level")
        let silent = try story("", name: "silent")
        #expect(try probe(silent, stream: "a:0", entries: "codec_name").isEmpty, "a clip's sound is only mixed when asked")
    }

    @Test("segue render takes clips among images by content, not name, and the MP4 plays in FFmpeg and GStreamer")
    func commandLine() throws {
        let folder = temporaryFolder()
        let clip = try makeClip("clip.mp4", "testsrc2=s=320x240:r=25:d=1.2", ["-c:v", "libx264", "-pix_fmt", "yuv420p"], in: folder)
        let misnamed = folder.appendingPathComponent("holiday.jpg").path
        try FileManager.default.copyItem(atPath: clip, toPath: misnamed)
        let webm = try makeClip("clip.webm", "testsrc2=s=160x120:r=30:d=1", ["-c:v", "libvpx-vp9", "-b:v", "200k", "-deadline", "realtime"], in: folder)
        let out = folder.appendingPathComponent("mixed.mp4").path
        let r = try run(try installedAlone(), ["render", "--size", "180x320", "--set", "canvas.scale=0.5", "--set", "hold=0.5",
                                               example("a.jpg"), misnamed, webm, example("b.png"), "-o", out], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        // Three 0.5 s cubes; each clip holds its length less its transitions (1.2 - 1 and 1 - 1 s),
        // so that it is on screen as long as it plays; the stills hold 0.5 s.
        let video = try probe(out, stream: "v:0", entries: "nb_frames,duration")
        let expected = 3 * 0.5 + 0.5 + 0.2 + 0 + 0.5
        #expect(abs((Double(video["duration"] ?? "") ?? 0) - expected) < 0.05, "\(video), expected \(expected) s")
        let gst = try tool("gst-launch-1.0", ["-q", "filesrc", "location=\(out)", "!", "qtdemux", "!", "avdec_h264", "!", "fakesink"])
        #expect(gst.status == 0, "\(gst.stderr)")
    }

    @Test("errors: no video stream, a damaged clip (naming the time), over the size limit, HDR, a whole-story transition: exit code, nothing written")
    func errors() throws {
        let folder = temporaryFolder()
        let clip = try makeClip("good.mp4", "testsrc2=s=160x120:r=30:d=3", ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"], in: folder)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        let cut = folder.appendingPathComponent("cut.mp4").path
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: cut))
        let sound = try tone(seconds: 1, ext: "m4a", in: folder)
        let hdr = try makeClip("hdr.mp4", "testsrc2=s=64x64:r=30:d=1", ["-c:v", "libx264", "-pix_fmt", "yuv420p10le", "-color_trc", "smpte2084",
                                                                         "-color_primaries", "bt2020", "-colorspace", "bt2020nc"], in: folder)
        let storyWithSound = folder.appendingPathComponent("sound.yaml")
        try "slides:\n  - clip: \(sound)\n".write(to: storyWithSound, atomically: true, encoding: .utf8)
        let cases: [([String], Int32, [String])] = [
            (["--story", storyWithSound.path], 2, ["story \(storyWithSound.path), line 2: 'slides[1].clip' is '\(sound)' (expected a video clip (MP4, MOV, WebM, ...); the file holds no video stream)"]),
            ([cut], 1, ["cut.mp4: cannot read the clip: the clip is damaged at", " s"]),
            (["--max-image-pixels", "1000", clip], 2, ["good.mp4: the clip is over the decode limits", "160x120"]),
            // Composing 90 frames of 90x160 is 1.3 M pixel-frames; decoding 90 of 160x120, 1.7 M.
            (["--max-pixel-frames", "1500000", clip], 2, ["good.mp4: the clip is over the decode limits: decoding 90 pictures of 160x120"]),
            ([hdr], 2, ["hdr.mp4: not a video clip Segue can play: an HDR clip (PQ transfer)"]),
            (["--preset", "instagram-zoom", example("a.jpg"), clip], 2, ["good.mp4: is a video clip, and 'shared-zoom' builds screens of its own"]),
        ]
        for (arguments, code, messages) in cases {
            let out = folder.appendingPathComponent("out.mp4").path
            let r = try segue(["render", "--size", "90x160", "--set", "canvas.scale=0.25"] + arguments + ["-o", out])
            #expect(r.status == code && messages.allSatisfy(r.stderr.contains), "\(arguments): exit \(r.status): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments) left an output")
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: folder.path)).contains { $0.contains("segue-tmp") })
        }
    }

    @Test("memory stays flat however long the clip: 20 s costs what 2 s does")
    func flatMemory() throws {
        let folder = temporaryFolder()
        var peaks: [Int] = []
        for seconds in [2, 20] {
            let clip = try makeClip("c\(seconds).mp4", "testsrc2=s=540x960:r=30:d=\(seconds)", ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], in: folder)
            let out = folder.appendingPathComponent("m.mp4").path
            let (r, peak) = try measured(["render", "--size", "540x960", "--set", "canvas.scale=1.5", "--set", "encode.speed=ultrafast", clip, "--force", "-o", out], timeout: 300)
            #expect(r.status == 0, "\(r.stderr)")
            peaks.append(peak)
        }
        #expect(peaks[1] - peaks[0] < 15, "peak \(peaks[0]) MB with a 2 s clip, \(peaks[1]) MB with 20 s")
    }
}
