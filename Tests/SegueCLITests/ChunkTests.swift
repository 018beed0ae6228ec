import Foundation
import Testing

/// A story with a clip (its own sound), Ken Burns motion, a crossfade and music, in `folder`.
func chunkStory(in folder: URL) throws -> String {
    for name in ["a.jpg", "b.png", "c.webp"] {
        try? FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
    }
    let clip = folder.appendingPathComponent("clip.mp4").path
    let made = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=frequency=300:duration=2",
                                   "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip])
    #expect(made.status == 0, "\(made.stderr)")
    let music = try tone(seconds: 8, in: folder)
    let story = folder.appendingPathComponent("story.yaml")
    try """
        preset: stories-cube
        set: {hold: 1.0, audio: {file: \(music)}}
        slides:
          - {image: a.jpg, motion: in}
          - {clip: clip.mp4, audio: true, transition: {kind: crossfade, duration: 0.4}}
          - {image: b.png, motion: {kind: left, amount: 0.15}}
          - image: c.webp
        """.write(to: story, atomically: true, encoding: .utf8)
    return story.path
}

/// The lines of a framemd5 listing without its header, each its frame's checksum.
func checksums(_ text: String) -> [String] {
    text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last!).trimmingCharacters(in: .whitespaces) }
}

/// FFmpeg's framemd5 of one stream of a file, decoded (`stream` v or a), or copied (`copy`).
func decodedChecksums(_ path: String, stream: String = "v", copy: Bool = false) throws -> [String] {
    let r = try tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:\(stream)"] + (copy ? ["-c", "copy"] : []) + ["-f", "framemd5", "-"])
    #expect(r.status == 0, "\(r.stderr)")
    return checksums(r.stdout)
}

@Suite("One video in chunks, joined without re-encoding", .serialized)
struct ChunkTests {
    let size = ["--size", "180x320", "--set", "canvas.scale=0.5"]

    @Test("1, 2, 4 and 7 chunks of a story with a clip, motion and music: the frames, the RGBA frames and the sound of one machine's render, timestamps continuous")
    func joined() throws {
        let folder = temporaryFolder()
        let story = try chunkStory(in: folder)
        let one = folder.appendingPathComponent("one.mp4").path
        #expect(try segue(["render", "--story", story, "-o", one] + size).status == 0)
        let oneRGBA = checksums(try segue(["render", "--story", story, "-o", "-"] + size).stdout)
        let frames = oneRGBA.count
        let counted = try frameCount(one)
        #expect(frames == 165 && counted == frames)
        let oneSound = try decodedChecksums(one, stream: "a", copy: true)

        for n in [1, 2, 4, 7] {
            let out = folder.appendingPathComponent("joined-\(n).mp4").path
            var rgba: [String] = [], decoded: [String] = []
            for k in 1...n {
                let r = try segue(["render", "--story", story, "-o", out, "--chunk", "\(k)/\(n)"] + size)
                #expect(r.status == 0, "\(r.stderr)")
                let chunk = out + ".chunks/chunk-\(String(format: "%03d", k))-of-\(String(format: "%03d", n)).mp4"
                #expect(try probe(chunk, stream: "a", entries: "codec_type").isEmpty, "chunk \(k)/\(n) has sound")
                decoded += try decodedChecksums(chunk)
                // The RGBA frames the chunk's encoder was given: one machine's, frame for frame.
                rgba += checksums(try segue(["render", "--story", story, "-o", "-", "--chunk", "\(k)/\(n)"] + size).stdout)
            }
            #expect(rgba == oneRGBA, "\(n) chunks: the RGBA frames differ from one machine's")
            // The sound is a task of its own: one machine's AAC packets, alone.
            let sound = try segue(["render", "--story", story, "-o", out, "--chunk", "sound"] + size)
            #expect(sound.status == 0 && sound.stderr.contains("wrote \(out).chunks/sound.m4a"), "\(sound.stderr)")
            #expect(try decodedChecksums(out + ".chunks/sound.m4a", stream: "a", copy: true) == oneSound, "the sound chunk's AAC packets differ from one machine's")
            #expect(try probe(out + ".chunks/sound.m4a", stream: "v", entries: "codec_type").isEmpty, "the sound chunk has video")
            let r = try segue(["join", "--story", story, "-o", out] + size)
            #expect(r.status == 0 && r.stderr.contains("joined \(n) chunks"), "\(r.stderr)")
            // Every decoded frame is its chunk's decoded frame; the sound is one machine's, byte for byte.
            #expect(try decodedChecksums(out) == decoded, "\(n) chunks: decoded frames differ from the chunks'")
            #expect(decoded.count == frames)
            #expect(try decodedChecksums(out, stream: "a", copy: true) == oneSound, "\(n) chunks: the AAC packets differ from one machine's")
            // Timestamps: every frame once, one frame apart, decoding order increasing.
            let packets = try tool("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", out]).stdout
                .split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
            let shown = packets.map { $0[0] }.sorted(), decoding = packets.map { $0[1] }
            #expect(shown.count == frames && shown.enumerated().allSatisfy { abs($0.element - Double($0.offset) / 30) < 1e-3 }, "\(n) chunks: presentation times are not 0, 1/30, ...")
            #expect(zip(decoding, decoding.dropFirst()).allSatisfy { $0 < $1 }, "\(n) chunks: decoding times do not increase")
            #expect(try probe(out, stream: "a", entries: "duration")["duration"] == (try probe(one, stream: "a", entries: "duration"))["duration"])
            if n == 4 {
                // A player that is not FFmpeg reads it through: GStreamer, sound and picture.
                let gst = try tool("gst-launch-1.0", ["-q", "filesrc", "location=\(out)", "!", "qtdemux", "name=d", "d.audio_0", "!", "queue", "!", "avdec_aac", "!", "fakesink",
                                                      "d.video_0", "!", "queue", "!", "avdec_h264", "!", "fakesink"])
                #expect(gst.status == 0 && !gst.stderr.contains("ERROR"), "\(gst.stderr)")
            }
            if n == 1 {
                // One chunk is the one machine's video, packet for packet.
                #expect(try decodedChecksums(out, copy: true) == (try decodedChecksums(one, stream: "v", copy: true)))
            }
        }
    }

    @Test("at the seams the joined video is one machine's within x264's rate control: SSIM of each seam's frames >= 0.99 at 720x1280")
    func seams() throws {
        let folder = temporaryFolder()
        let story = try chunkStory(in: folder)
        let size = ["--size", "720x1280", "--set", "canvas.scale=2"]
        let one = folder.appendingPathComponent("one.mp4").path, out = folder.appendingPathComponent("out.mp4").path
        #expect(try segue(["render", "--story", story, "-o", one] + size).status == 0)
        for k in ["1/4", "2/4", "3/4", "4/4", "sound"] { #expect(try segue(["render", "--story", story, "-o", out, "--chunk", k] + size).status == 0) }
        #expect(try segue(["join", "--story", story, "-o", out] + size).status == 0)
        let stats = folder.appendingPathComponent("ssim.txt").path
        let r = try tool("ffmpeg", ["-v", "error", "-i", out, "-i", one, "-lavfi", "[0:v][1:v]ssim=stats_file=\(stats)", "-f", "null", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let ssim = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("All:") }.flatMap { Double($0.dropFirst(4)) }
        }
        #expect(ssim.count == 165)
        // Chunks start at 41, 82, 123: the last frame before each seam and the first after.
        for seam in [41, 82, 123] {
            for frame in [seam - 1, seam] {
                #expect(ssim[frame] >= 0.99, "frame \(frame) at a seam: SSIM \(ssim[frame]) against one machine's render")
            }
        }
        print("seam SSIM against one machine:", [40, 41, 81, 82, 122, 123].map { String(format: "%d: %.4f", $0, ssim[$0]) }.joined(separator: ", "))
    }

    @Test("a missing chunk and a chunk of another job are refused by name (exit 2, nothing written); more chunks than frames; --resume keeps what is done")
    func refusals() throws {
        let folder = temporaryFolder()
        let story = try chunkStory(in: folder)
        let out = folder.appendingPathComponent("out.mp4").path
        func chunk(_ k: Int, of n: Int) -> String { out + ".chunks/chunk-\(String(format: "%03d", k))-of-\(String(format: "%03d", n)).mp4" }
        for k in [1, 2, 4] { #expect(try segue(["render", "--story", story, "-o", out, "--chunk", "\(k)/4"] + size).status == 0) }
        var r = try segue(["join", "--story", story, "-o", out] + size)
        #expect(r.status == 2 && r.stderr.contains("chunk-003-of-004.mp4: missing"), "\(r.stderr)")
        #expect(r.stderr.contains("\(out).chunks/sound.m4a: missing: the sound chunk was not rendered"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // A sound chunk of another job (another loudness) is refused by name as a video chunk is.
        r = try segue(["render", "--story", story, "-o", out, "--chunk", "sound", "--set", "audio.volume=0.5"] + size)
        #expect(r.status == 0, "\(r.stderr)")
        r = try segue(["join", "--story", story, "-o", out] + size)
        #expect(r.status == 2 && r.stderr.contains("sound.m4a: a sound chunk of another job"), "\(r.stderr)")
        // Rendered again without --force or --resume: it is there already.
        r = try segue(["render", "--story", story, "-o", out, "--chunk", "sound"] + size)
        #expect(r.status == 2 && r.stderr.contains("sound.m4a"), "\(r.stderr)")

        // Chunk 3 of another job (another crf) in its place.
        r = try segue(["render", "--story", story, "-o", out, "--chunk", "3/4", "--set", "encode.crf=30"] + size)
        #expect(r.status == 0, "\(r.stderr)")
        r = try segue(["join", "--story", story, "-o", out] + size)
        #expect(r.status == 2 && r.stderr.contains("chunk-003-of-004.mp4: a chunk of another job"), "\(r.stderr)")
        #expect(!r.stderr.contains("chunk-001") && !FileManager.default.fileExists(atPath: out), "\(r.stderr)")

        // --resume renders chunk 3 again, here, and keeps the others as they are.
        let done = try [1, 2, 4].map { try FileManager.default.attributesOfItem(atPath: chunk($0, of: 4))[.modificationDate] as! Date }
        r = try segue(["join", "--story", story, "-o", out, "--resume"] + size)
        #expect(r.status == 0 && r.stderr.contains("rendered the missing chunk \(chunk(3, of: 4))"), "\(r.stderr)")
        #expect(r.stderr.contains("rendered the missing chunk \(out).chunks/sound.m4a"), "\(r.stderr)")
        #expect(try [1, 2, 4].map { try FileManager.default.attributesOfItem(atPath: chunk($0, of: 4))[.modificationDate] as! Date } == done)
        #expect(try frameCount(out) == 165)
        // A chunk task run again with --resume keeps its chunk; a join run again keeps the video.
        r = try segue(["render", "--story", story, "-o", out, "--chunk", "2/4", "--resume"] + size)
        #expect(r.status == 0 && r.stderr.contains("kept \(chunk(2, of: 4))"), "\(r.stderr)")
        r = try segue(["join", "--story", story, "-o", out, "--resume"] + size)
        #expect(r.status == 0 && r.stderr.contains("kept \(out)"), "\(r.stderr)")

        // 8 chunks of a 6-frame video: two have no frames, and the join still holds all six.
        let short = folder.appendingPathComponent("short.mp4").path
        for k in 1...8 { #expect(try segue(["render", example("a.jpg"), "-o", short, "--chunk", "\(k)/8", "--set", "hold=0.2"] + size).status == 0) }
        r = try segue(["join", example("a.jpg"), "-o", short, "--set", "hold=0.2", "--clean"] + size)
        #expect(r.status == 0, "\(r.stderr)")
        let shortFrames = try frameCount(short)
        #expect(shortFrames == 6 && !FileManager.default.fileExists(atPath: short + ".chunks"))

        // Options that do not go together.
        r = try segue(["render", "--story", story, "-o", folder.appendingPathComponent("x.gif").path, "--chunk", "1/2"] + size)
        #expect(r.status == 2 && r.stderr.contains("--chunk renders a chunk of an MP4"), "\(r.stderr)")
        r = try segue(["render", "--story", story, "-o", out, "--chunk", "0/2"] + size)
        #expect(r.status == 2 && r.stderr.contains("--chunk '0/2'"), "\(r.stderr)")
        r = try run(segueBinary, ["render", "--story", story, "-o", out, "--chunk", "auto"] + size)
        #expect(r.status == 2 && r.stderr.contains("--chunk auto: none of SLURM_ARRAY_TASK_ID"), "\(r.stderr)")

        // Under an array, a video with sound: the last task renders the sound, the others the
        // video's chunks (one fewer); without sound every task renders video; one task cannot.
        func task(_ id: Int, of count: Int, _ arguments: [String]) throws -> Run {
            try run(segueBinary, ["render", "--chunk", "auto", "--progress", "json"] + arguments + size, in: folder,
                    environment: ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_COUNT": "\(count)"])
        }
        let auto = folder.appendingPathComponent("auto.mp4").path
        r = try task(2, of: 3, ["--story", story, "-o", auto])
        #expect(r.status == 0 && r.stderr.contains("\"chunk\":\"sound\"") && FileManager.default.fileExists(atPath: auto + ".chunks/sound.m4a"), "\(r.stderr)")
        r = try task(1, of: 3, ["--story", story, "-o", auto])
        #expect(r.status == 0 && r.stderr.contains("\"chunk\":\"2/2\""), "\(r.stderr)")
        r = try task(0, of: 1, ["--story", story, "-o", auto])
        #expect(r.status == 2 && r.stderr.contains("a video with sound is rendered by 2 tasks or more"), "\(r.stderr)")
        r = try task(1, of: 3, [example("a.jpg"), "-o", folder.appendingPathComponent("silent.mp4").path, "--set", "hold=0.2"])
        #expect(r.status == 0 && r.stderr.contains("\"chunk\":\"2/3\""), "\(r.stderr)")
        r = try segue(["render", example("a.jpg"), "-o", folder.appendingPathComponent("silent.mp4").path, "--chunk", "sound", "--set", "hold=0.2"] + size)
        #expect(r.status == 0 && r.stderr.contains("has no sound"), "\(r.stderr)")
    }

    @Test("a soundtrack over a minute is encoded in segments of a minute, one AAC encoder each: the sound chunk, made on two threads, has one machine's packets, and at each seam the sound is as close to the music as FFmpeg's own encoder of the whole track is")
    func soundInSegments() throws {
        let folder = temporaryFolder()
        // Tones struck every 0.37 s (each strike an attack the encoder switches its blocks
        // for), one a few hundredths of a second before each seam (61.44 s, 122.88 s).
        let music = folder.appendingPathComponent("tones.flac").path
        let made = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                       "aevalsrc=0.5*sin(2*PI*440*t)*exp(-8*mod(t\\,0.37))+0.2*sin(2*PI*660*t)|0.5*sin(2*PI*550*t)*exp(-8*mod(t\\,0.37))+0.2*sin(2*PI*330*t):s=48000:d=140",
                                       "-c:a", "flac", music])
        #expect(made.status == 0, "\(made.stderr)")
        let story = folder.appendingPathComponent("long.yaml").path
        try """
            preset: crossfade
            audio: {file: tones.flac}
            set: {canvas.size: [64, 112], canvas.scale: 0.25, hold: 64.5, transition.duration: 0.5}
            slides: [{image: \(example("a.jpg"))}, {image: \(example("b.png"))}]
            """.write(toFile: story, atomically: true, encoding: .utf8)
        let one = folder.appendingPathComponent("one.mp4").path, out = folder.appendingPathComponent("out.mp4").path
        #expect(try segue(["render", "--story", story, "-o", one]).status == 0)
        let sound = try segue(["render", "--story", story, "-o", out, "--chunk", "sound", "--threads", "2"])
        #expect(sound.status == 0, "\(sound.stderr)")
        let packets = try decodedChecksums(one, stream: "a", copy: true)
        let chunked = try decodedChecksums(out + ".chunks/sound.m4a", stream: "a", copy: true)
        #expect(packets.count > 6000 && packets == chunked, "the sound chunk's packets differ from one machine's")
        // FFmpeg's AAC encoder at the same rate, fed the whole track at once from the sample
        // Segue's first packet codes (the first 1,024 play during the priming), so that its
        // packets code the same stretches of music as Segue's.
        let whole = folder.appendingPathComponent("whole.mp4").path
        #expect(try tool("ffmpeg", ["-v", "error", "-y", "-i", music, "-af", "atrim=start_sample=1024,asetpts=N/SR/TB", "-c:a", "aac", "-b:a", "192k", whole]).status == 0)
        for channel in [0, 1] {
            let source = try samples(music, channel: channel), ours = try samples(one, channel: channel)
            let theirs = [Float](repeating: 0, count: 1024) + (try samples(whole, channel: channel))
            /// The error against the music over the 1,024 samples of packet `j`.
            func error(_ x: [Float], _ j: Int) -> Double {
                let range = j * 1024..<(j + 1) * 1024
                return (range.reduce(0.0) { $0 + pow(Double(x[$1] - source[$1]), 2) } / 1024).squareRoot()
            }
            for seam in [2880, 5760] {
                for j in seam - 4..<seam + 16 {
                    #expect(error(ours, j) <= 2 * error(theirs, j) + 0.0002,
                            "channel \(channel), packet \(j) (seam \(seam)): \(error(ours, j)) against FFmpeg's \(error(theirs, j))")
                }
            }
        }
    }
}
