import Foundation
import Testing

/// The RGBA pixels of frame `index` of a video as FFmpeg decodes it (`decoder` forces one:
/// libvpx-vp9 reads VP9's alpha).
func decodedRGBA(_ path: String, frame index: Int, decoder: String? = nil, in folder: URL) throws -> [UInt8] {
    let raw = folder.appendingPathComponent("frame-\(UUID().uuidString).rgba").path
    let r = try tool("ffmpeg", ["-v", "error"] + (decoder.map { ["-c:v", $0] } ?? []) + ["-i", path, "-vf", "select=eq(n\\,\(index))",
                                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", raw])
    #expect(r.status == 0, "\(r.stderr)")
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
}

@Suite("Outputs for every platform: WebM, MOV, WebP, transparent video, exact frame rates, targets")
struct OutputTests {
    let small = ["--preset", "stories-cube", "--size", "180x320", "--set", "canvas.scale=0.5", "--set", "hold=0.8"]
    var inputs: [String] { [example("a.jpg"), example("b.png")] }

    @Test(".webm is VP9 and Opus that FFmpeg, GStreamer and Chromium decode to the end; .webp is an animated WebP looping for ever, every frame decoded by Chromium")
    func webmAndWebP() throws {
        let folder = temporaryFolder()
        let webm = folder.appendingPathComponent("story.webm").path
        let r = try segue(["render"] + small + inputs + ["--audio", "silence", "-o", webm])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try segue(["render"] + small + inputs + ["-o", folder.appendingPathComponent("story.framemd5").path])
        let expected = (try String(contentsOfFile: folder.appendingPathComponent("story.framemd5").path, encoding: .utf8))
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(frames.status == 0 && expected > 40)
        #expect(try probe(webm, stream: "v:0", entries: "codec_name")["codec_name"] == "vp9")
        #expect(try probe(webm, stream: "a:0", entries: "codec_name,sample_rate")["codec_name"] == "opus")
        let counted = try tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                           "-of", "csv=p=0", webm]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(counted == "\(expected)", "FFmpeg decodes \(counted) frames of \(expected)")
        // GStreamer's own demuxer and decoders, to the end of both streams.
        let gst = try tool("gst-launch-1.0", ["-q", "filesrc", "location=\(webm)", "!", "matroskademux", "name=d",
                                              "d.video_0", "!", "queue", "!", "vp9dec", "!", "fakesink",
                                              "d.audio_0", "!", "queue", "!", "opusdec", "!", "fakesink"])
        #expect(gst.status == 0, "\(gst.stderr)")

        let webp = folder.appendingPathComponent("story.webp").path
        #expect(try segue(["render"] + small + inputs + ["-o", webp]).status == 0)
        let info = try tool("webpmux", ["-info", webp])
        #expect(info.status == 0 && info.stdout.contains("animation") && info.stdout.contains("Loop Count : 0"), "\(info.stdout)")
        // Every frame's duration adds up to the video's (webpmux merges a still hold's frames).
        let durations = info.stdout.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            return fields.first?.hasSuffix(":") == true && fields.count > 6 ? Int(fields[6]) : nil
        }
        #expect(durations.count > 5 && durations.reduce(0, +) == expected * 1000 / 30, "\(durations)")

        // Chromium plays the WebM to its end, its sound decoded, and decodes every frame of the WebP
        // (the whole suite only: a browser).
        guard !Tier.fast else { return }
        let browser = try run(repositoryRoot.appendingPathComponent("scripts/browser-check").path, [webm, webp])
        #expect(browser.status == 0, "\(browser.stdout) \(browser.stderr)")
        let answers = browser.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(answers.count == 2)
        if answers.count == 2 {
            #expect(answers[0]["ended"] as? Bool == true && answers[0]["frames"] as? Int == expected && (answers[0]["audioBytes"] as? Int ?? 0) > 0, "\(answers[0])")
            #expect(answers[1]["animated"] as? Bool == true && answers[1]["frames"] as? Int == durations.count && answers[1]["repetition"] as? String == "forever"
                    && answers[1]["width"] as? Int == 180, "\(answers[1])")
        }
    }

    @Test("canvas.background: transparent: ProRes 4444 in MOV and VP9 alpha in WebM are see-through where nothing is drawn and opaque under the picture; MP4 is refused, naming the outputs with alpha")
    func transparent() throws {
        let folder = temporaryFolder()
        // A landscape picture fitted into an upright canvas: bars above and below it.
        let wide = folder.appendingPathComponent("wide.png").path
        #expect(try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=0xE03020:s=320x180", "-frames:v", "1", wide]).status == 0)
        let job = small + ["--set", "canvas.background=transparent", "--set", "fit=fit", wide, wide]
        for (name, decoder) in [("clear.mov", nil), ("clear.webm", "libvpx-vp9")] as [(String, String?)] {
            let out = folder.appendingPathComponent(name).path
            let r = try segue(["render"] + job + ["-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            let format = try probe(out, stream: "v:0", entries: "pix_fmt,codec_name")
            #expect(name.hasSuffix(".mov") ? format["codec_name"] == "prores" && format["pix_fmt"]?.hasPrefix("yuva444p") == true
                                            : format["codec_name"] == "vp9", "\(format)")
            let pixels = try decodedRGBA(out, frame: 5, decoder: decoder, in: folder)
            #expect(pixels.count == 180 * 320 * 4)
            func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[(y * 180 + x) * 4..<(y * 180 + x) * 4 + 4]) }
            #expect(pixel(90, 10)[3] == 0 && pixel(10, 300)[3] == 0, "\(name): the bars are see-through: \(pixel(90, 10)), \(pixel(10, 300))")
            let middle = pixel(90, 160)
            #expect(middle[3] == 255 && abs(Int(middle[0]) - 0xE0) <= 4 && abs(Int(middle[1]) - 0x30) <= 4 && abs(Int(middle[2]) - 0x20) <= 4,
                    "\(name): the picture is opaque and its own colour: \(middle)")
        }
        let mp4 = folder.appendingPathComponent("clear.mp4").path
        let refused = try segue(["render"] + job + ["-o", mp4])
        #expect(refused.status == 2 && refused.stderr.contains(".mov (ProRes 4444)") && !FileManager.default.fileExists(atPath: mp4), "\(refused.stderr)")
    }

    @Test("--fps 29.97 is 30000/1001 exactly: the stream's rate and time base, frame 17999's time, and a soundtrack exactly as long over ten minutes")
    func ntscRate() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("ten.mp4").path
        // 600.6 s: 18,000 frames of 29.97, a still picture held (tiny, so it encodes fast).
        let r = try segue(["render", "--preset", "crossfade", "--size", "32x56", "--set", "canvas.scale=0.25", "--set", "hold=600.6",
                           "--fps", "29.97", "--audio", "silence", example("a.jpg"), "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let video = try probe(out, stream: "v:0", entries: "r_frame_rate,avg_frame_rate,time_base,nb_frames,duration")
        #expect(video["r_frame_rate"] == "30000/1001" && video["avg_frame_rate"] == "30000/1001" && video["nb_frames"] == "18000", "\(video)")
        let times = try tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "csv=p=0", out]).stdout
            .split(separator: "\n").compactMap { Int($0) }
        // In the stream's time base (1/30000 here) frame i is at i × 1001.
        #expect(video["time_base"] == "1/30000" && times.max() == 17999 * 1001 && Set(times).count == 18000, "last \(times.max() ?? -1)")
        let audio = try probe(out, stream: "a:0", entries: "duration_ts,sample_rate")
        #expect(audio["duration_ts"] == "\(18000 * 48000 * 1001 / 30000)", "\(audio)")
        // A clip of 601 s at 30 fps, red in even seconds and blue in odd ones: frame 17967 of a
        // 29.97 story is at 599.4989 s, in second 599 (blue); at 17967 / 30 s it would be red.
        let clip = folder.appendingPathComponent("seconds.mp4").path
        #expect(try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "nullsrc=s=32x32:r=30:d=601,format=rgb24,geq=r='255*(1-mod(floor(T),2))':g=0:b='255*mod(floor(T),2)'",
                                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", clip]).status == 0)
        let frames = folder.appendingPathComponent("frames").path
        let played = try segue(["render", "--preset", "crossfade", "--size", "32x32", "--set", "canvas.scale=0.25", "--fps", "29.97",
                                clip, "--frames", "17966,17967", "-o", frames])
        #expect(played.status == 0, "\(played.stderr)")
        for index in [17966, 17967] {
            let pixels = try decodedRGBA(frames + "/frame-\(index).png", frame: 0, in: folder)
            #expect(pixels.count == 32 * 32 * 4 && pixels[2] > 200 && pixels[0] < 50, "frame \(index) at \(Double(index) * 1001 / 30000) s: \(pixels.prefix(4))")
        }
        let md5 = folder.appendingPathComponent("a.framemd5").path
        #expect(try segue(["render"] + small + ["--fps", "30000/1001", example("a.jpg"), "-o", md5]).status == 0)
        #expect(try String(contentsOfFile: md5, encoding: .utf8).contains("#tb 0: 1001/30000"))
        let bad = try segue(["render"] + small + ["--fps", "29.9.7", example("a.jpg"), "-o", folder.appendingPathComponent("x.mp4").path])
        #expect(bad.status != 0 && bad.stderr.contains("--fps 29.9.7"), "\(bad.stderr)")
    }

    @Test("--target instagram-story: 1080x1920's shape at 30 fps, H.264 capped at 8 Mbit/s, the sound at -14 LUFS; a story past 60 s is warned of, a landscape Short and a ten-minute-plus TikTok refused")
    func targets() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("story.mp4").path
        let music = try tone(seconds: 10, frequency: 440, ext: "wav", in: folder)
        // 61 s at a small size of the same shape (the command line's --size wins over the target's).
        let r = try segue(["render", "--target", "instagram-story", "--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=30.5",
                           "--preset", "crossfade", "--audio", music, "--set", "audio.volume=0.1", example("a.jpg"), example("b.png"), "-o", out])
        #expect(r.status == 0 && r.stderr.contains("warning: target instagram-story") && r.stderr.contains("60 s"), "\(r.stderr)")
        let video = try probe(out, stream: "v:0", entries: "codec_name,width,height,r_frame_rate,profile")
        #expect(video["codec_name"] == "h264" && video["width"] == "90" && video["r_frame_rate"] == "30/1", "\(video)")
        // x264 writes its settings into the stream: the rate cap and its buffer are there.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.range(of: Data("vbv_maxrate=8000 vbv_bufsize=16000".utf8)) != nil)
        let measured = try loudness(out)
        #expect(abs(measured.integrated + 14) < 0.6 && measured.truePeak <= -0.5, "\(measured)")
        #expect(try probe(out, stream: "a:0", entries: "sample_rate")["sample_rate"] == "48000")

        let short = folder.appendingPathComponent("short.mp4").path
        let landscape = try segue(["render", "--target", "youtube-short", "--size", "160x90", example("a.jpg"), "-o", short])
        #expect(landscape.status == 2 && landscape.stderr.contains("not a Short") && !FileManager.default.fileExists(atPath: short), "\(landscape.stderr)")
        let long = try segue(["render", "--target", "tiktok", "--set", "hold=700", example("a.jpg"), "-o", short])
        #expect(long.status == 2 && long.stderr.contains("10 min"), "\(long.stderr)")
        // youtube: YouTube's upload settings, closed GOPs of half the frame rate and two B-frames.
        let youtube = folder.appendingPathComponent("youtube.mp4").path
        let yt = try segue(["render", "--target", "youtube", "--size", "160x90", "--set", "hold=1", example("a.jpg"), example("b.png"), "-o", youtube])
        #expect(yt.status == 0, "\(yt.stderr)")
        let keys = try tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", youtube]).stdout
            .split(separator: "\n").enumerated().filter { $0.element.hasPrefix("K") }.map(\.offset)
        #expect(keys.count > 3 && zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 15 }, "keyframes at \(keys)")
        let ytBytes = try Data(contentsOf: URL(fileURLWithPath: youtube))
        #expect(ytBytes.range(of: Data("bframes=2 ".utf8)) != nil && ytBytes.range(of: Data("keyint=15 ".utf8)) != nil)
        // A batch job's own target: refused up front with the job's number.
        let manifest = folder.appendingPathComponent("jobs.yaml").path
        try """
            jobs:
              - inputs: [\(example("a.jpg"))]
                target: youtube-short
                set: {canvas.size: [320, 180]}
                output: landscape.mp4
            """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let batch = try segue(["batch", manifest, "--dry-run"])
        #expect(batch.status == 2 && batch.stdout.contains("not a Short"), "\(batch.stdout) \(batch.stderr)")
        let unknown = try segue(["render", "--set", "target=tiktak", example("a.jpg"), "-o", short])
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean 'tiktok'"), "\(unknown.stderr)")
    }

    @Test("a target's safe area: captions placed by default are kept above the reel's buttons (35 % of the height); text given at stays where it is put, with a warning, as without a target")
    func safeArea() throws {
        let folder = temporaryFolder()
        let black = folder.appendingPathComponent("black.png").path
        #expect(try tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=black:s=180x320", "-frames:v", "1", black]).status == 0)
        try "1\n00:00:00,000 --> 00:00:05,000\n@handle\n".write(toFile: folder.appendingPathComponent("talk.srt").path, atomically: true, encoding: .utf8)
        /// The lowest row with text on it, as a fraction of the height, and what was said.
        func lowestText(_ overlay: String, _ extra: [String] = []) throws -> (end: Double, stderr: String) {
            let story = folder.appendingPathComponent("story.yaml").path
            try "target: instagram-reel\n\(overlay)\nslides:\n  - image: black.png\n".write(toFile: story, atomically: true, encoding: .utf8)
            let frames = folder.appendingPathComponent("frames-\(UUID().uuidString)").path
            let r = try segue(["render", "--story", story, "--size", "180x320", "--set", "canvas.scale=0.5", "--frames", "10", "--force"] + extra + ["-o", frames])
            #expect(r.status == 0, "\(r.stderr)")
            let pixels = try decodedRGBA(frames + "/frame-00010.png", frame: 0, in: folder)
            let rows = (0..<320).filter { y in (0..<180).contains { x in pixels[(y * 180 + x) * 4] > 128 } }
            return (Double((rows.max() ?? 0) + 1) / 320, r.stderr)
        }
        // Captions sit by default with their bottom at 80 % of the height: kept above the buttons.
        let captions = try lowestText("captions: {file: talk.srt, size: 30, color: \"#ffffff\", shadow: none}")
        #expect(captions.end <= 0.65 + 0.5 / 320 && captions.end > 0.6, "the captions end at \(captions.end) of the height")
        #expect(!captions.stderr.contains("placed at"), "\(captions.stderr)")
        // Text the story places at the bottom edge stays there, said once.
        let given = "overlays:\n  - {text: \"@handle\", size: 30, color: \"#ffffff\", at: [0.5, 1.0], anchor: bottom}"
        let placed = try lowestText(given)
        #expect(placed.end > 0.95, "the text ends at \(placed.end) of the height")
        #expect(placed.stderr.contains("warning: target instagram-reel: the text '@handle' is placed at [0.5, 1], where the platform's interface covers the screen (canvas.safeArea [0.14, 0.06, 0.35, 0.06]); it is kept where it was placed"),
                "\(placed.stderr)")
        let free = try lowestText(given, ["--set", "target=none"])
        #expect(free.end == placed.end && !free.stderr.contains("placed at"), "without a target the text ends at \(free.end)")
    }

    @Test("an output Segue cannot write, and codecs this FFmpeg lacks (VP9 and Opus hidden from it), are refused before rendering, naming the package")
    func badOutputs() throws {
        let folder = temporaryFolder()
        let avi = try segue(["render"] + small + inputs + ["-o", folder.appendingPathComponent("x.avi").path])
        #expect(avi.status == 2 && avi.stderr.contains("x.avi") && avi.stderr.contains(".webm"), "\(avi.stderr)")
        // An FFmpeg built without libvpx (or libopus): the same libraries, with the encoders
        // HIDDEN names hidden from avcodec_find_encoder_by_name by a library loaded first.
        let source = folder.appendingPathComponent("hide.c"), library = folder.appendingPathComponent("hide.so")
        try """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <stdlib.h>
            #include <string.h>
            const void *avcodec_find_encoder_by_name(const char *name) {
                const char *hidden = getenv("HIDDEN");
                if (hidden && !strcmp(name, hidden)) return 0;
                const void *(*real)(const char *) = (const void *(*)(const char *))dlsym(RTLD_NEXT, "avcodec_find_encoder_by_name");
                return real(name);
            }
            """.write(to: source, atomically: true, encoding: .utf8)
        let cc = try tool("clang", ["-shared", "-fPIC", "-o", library.path, source.path, "-ldl"])
        #expect(cc.status == 0, "\(cc.stderr)")
        let webm = folder.appendingPathComponent("x.webm").path
        for hidden in ["libvpx-vp9", "libopus"] {
            let r = try run("/usr/bin/env", ["LD_PRELOAD=\(library.path)", "HIDDEN=\(hidden)", segueBinary, "render"] + small + inputs
                                             + ["--set", "audio=silence", "-o", webm])
            #expect(r.status == 2 && r.stderr.contains("no \(hidden) encoder, which webm output needs") && r.stderr.contains("libavcodec59"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: webm))
        }
        // The rest of that FFmpeg still writes an MP4.
        let mp4 = try run("/usr/bin/env", ["LD_PRELOAD=\(library.path)", "HIDDEN=libvpx-vp9", segueBinary, "render"] + small + inputs + ["-o", folder.appendingPathComponent("x.mp4").path])
        #expect(mp4.status == 0, "\(mp4.stderr)")
    }
}
