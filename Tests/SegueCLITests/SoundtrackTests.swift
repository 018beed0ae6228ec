import Foundation
import Testing

/// A tone made by FFmpeg's sine source: `seconds` long at `frequency` Hz, mono 44.1 kHz,
/// as an MP3 (or the container `ext` names).
func tone(seconds: Double, frequency: Double = 440, ext: String = "mp3", in folder: URL) throws -> String {
    let path = folder.appendingPathComponent("tone-\(frequency)-\(seconds).\(ext)").path
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=44100:duration=\(seconds)", path])
    #expect(r.status == 0, "\(r.stderr)")
    return path
}

/// One channel of the MP4's sound (0: left, 1: right) decoded by FFmpeg to 48 kHz float samples.
func samples(_ mp4: String, channel: Int = 0) throws -> [Float] {
    let raw = mp4 + ".\(channel).f32"
    let r = try tool("ffmpeg", ["-v", "error", "-y", "-i", mp4, "-map", "0:a", "-af", "pan=mono|c0=c\(channel)", "-f", "f32le", "-ar", "48000", raw])
    #expect(r.status == 0, "\(r.stderr)")
    let data = try Data(contentsOf: URL(fileURLWithPath: raw))
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

func rms(_ x: [Float], from: Double, to: Double) -> Double {
    let a = max(0, Int(from * 48000)), b = min(x.count, Int(to * 48000))
    guard a < b else { return 0 }
    return (x[a..<b].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(b - a)).squareRoot()
}

func largestStep(_ x: [Float], from: Double, to: Double) -> Float {
    let a = max(0, Int(from * 48000)), b = min(x.count - 1, Int(to * 48000))
    return (a..<b).reduce(0) { max($0, abs(x[$1 + 1] - x[$1])) }
}

/// ffprobe's fields for one stream of a file.
func probe(_ path: String, stream: String, entries: String) throws -> [String: String] {
    let r = try tool("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=" + entries, "-of", "default=noprint_wrappers=1", path])
    return Dictionary(r.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }, uniquingKeysWith: { a, _ in a })
}

@Suite("A soundtrack: music trimmed, faded, looped and muxed as AAC")
struct SoundtrackTests {
    let small = ["--preset", "crossfade", "--size", "180x320", "--set", "canvas.scale=0.5"]

    /// A 7-second video (two slides of 3.25 s and a 0.5 s crossfade) with `audio` options.
    func render(_ options: [String], name: String = "story.mp4", in folder: URL) throws -> String {
        let out = folder.appendingPathComponent(name).path
        let r = try segue(["render"] + small + ["--set", "hold=3.25", example("a.jpg"), example("b.png")] + options + ["-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test("the track is AAC-LC, 48 kHz, stereo from a mono file, as long as the video, from time 0, with no edit list")
    func track() throws {
        let folder = temporaryFolder()
        let out = try render(["--audio", try tone(seconds: 10, in: folder)], in: folder)
        let audio = try probe(out, stream: "a:0", entries: "codec_name,profile,sample_rate,channels,start_time,duration")
        let video = try probe(out, stream: "v:0", entries: "duration")
        #expect(audio["codec_name"] == "aac" && audio["profile"] == "LC" && audio["sample_rate"] == "48000" && audio["channels"] == "2", "\(audio)")
        #expect(audio["start_time"] == "0.000000", "\(audio)")
        let a = Double(audio["duration"] ?? "") ?? -1, v = Double(video["duration"] ?? "") ?? -2
        #expect(abs(v - 7) < 1e-6 && abs(a - v) <= 1024.0 / 48000, "audio \(a) s, video \(v) s")
        let decoded = try samples(out)
        #expect(abs(Double(decoded.count) / 48000 - v) <= 1024.0 / 48000, "\(decoded.count) samples decoded")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(!(0..<(bytes.count - 4)).contains { bytes[$0] == 0x65 && bytes[$0 + 1] == 0x6C && bytes[$0 + 2] == 0x73 && bytes[$0 + 3] == 0x74 },
                "an elst box is in the file")
        let warnings = try tool("ffprobe", ["-v", "warning", out])
        #expect(warnings.status == 0 && warnings.stderr.isEmpty, "\(warnings.stderr)")
    }

    @Test("5.1 music is mixed down to stereo, and the audio is interleaved with the video through the file")
    func downmixAndInterleave() throws {
        let folder = temporaryFolder()
        let surround = folder.appendingPathComponent("surround.m4a").path
        let made = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=8", "-af",
                                       "pan=5.1|FL=c0|FR=c0|FC=c0|LFE=c0|BL=c0|BR=c0", "-c:a", "aac", surround])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try probe(surround, stream: "a:0", entries: "channels")["channels"] == "6")
        let out = try render(["--audio", surround], in: folder)
        #expect(try probe(out, stream: "a:0", entries: "channels")["channels"] == "2")
        #expect(rms(try samples(out), from: 2, to: 3) > 0.05)
        // Packets by position in the file: audio from the start to the end, among the video's.
        let packets = try tool("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pos", "-of", "csv=p=0", out])
        let rows = packets.stdout.split(separator: "\n").compactMap { line -> (Int, Int)? in
            let f = line.split(separator: ",").compactMap { Int($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
        let video = rows.filter { $0.0 == 0 }.map(\.1).sorted(), audio = rows.filter { $0.0 == 1 }.map(\.1).sorted()
        #expect(!video.isEmpty && !audio.isEmpty)
        if let firstAudio = audio.first, let lastAudio = audio.last, video.count > 20 {
            #expect(firstAudio < video[video.count / 10] && lastAudio > video[video.count * 9 / 10], "audio at \(firstAudio)...\(lastAudio)")
        }
    }

    @Test("the last second fades smoothly: the RMS falls steadily, the last 100 ms below 5 % of the middle's")
    func fadeOut() throws {
        let folder = temporaryFolder()
        let x = try samples(try render(["--audio", try tone(seconds: 10, in: folder), "--set", "audio.fadeIn=0.5"], in: folder))
        let middle = rms(x, from: 3, to: 4)
        #expect(middle > 0.05, "the tone is heard (RMS \(middle))")
        let steps = stride(from: 6.0, to: 6.9, by: 0.1).map { rms(x, from: $0, to: $0 + 0.1) }
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1 < $0 }, "RMS over the last second: \(steps)")
        #expect(rms(x, from: 6.9, to: 7.0) < 0.05 * middle)
        // The fade-in: quiet at first, full by its end.
        #expect(rms(x, from: 0.05, to: 0.1) < 0.2 * middle && abs(rms(x, from: 0.6, to: 0.7) - middle) < 0.05 * middle)
    }

    @Test("a 3-second file under a 7-second video loops without a click")
    func loopsWithoutClick() throws {
        let folder = temporaryFolder()
        // 450.5 Hz: 1351.5 periods in 3 s, so the restart comes half a period out of phase.
        let x = try samples(try render(["--audio", try tone(seconds: 3, frequency: 450.5, in: folder)], in: folder))
        let own = largestStep(x, from: 1, to: 2)
        #expect(largestStep(x, from: 2.5, to: 6.5) <= own * 1.02, "the tone steps at most \(own) a sample")
        #expect(rms(x, from: 4, to: 5) > 0.8 * rms(x, from: 1, to: 2), "the second time round is heard")
        // Without loop the music stops at 3 s.
        let once = try samples(try render(["--audio", try tone(seconds: 3, frequency: 450.5, in: folder), "--set", "audio.loop=false"],
                                          name: "once.mp4", in: folder))
        #expect(rms(once, from: 4, to: 5) < 1e-4)
    }

    @Test("start skips into the file, and volume scales it")
    func startAndVolume() throws {
        let folder = temporaryFolder()
        // A tone of 440 Hz for 2 s, then 880 Hz: started at 2 s, only the higher one is heard.
        let low = try tone(seconds: 2, frequency: 440, ext: "wav", in: folder), high = try tone(seconds: 8, frequency: 880, ext: "wav", in: folder)
        let joined = folder.appendingPathComponent("joined.flac").path
        #expect(try tool("ffmpeg", ["-v", "error", "-y", "-i", low, "-i", high, "-filter_complex", "[0:a][1:a]concat=n=2:v=0:a=1", joined]).status == 0)
        let full = try samples(try render(["--audio", joined, "--set", "audio.start=2"], name: "full.mp4", in: folder))
        let quiet = try samples(try render(["--audio", joined, "--set", "audio.start=2", "--set", "audio.volume=0.5"], name: "quiet.mp4", in: folder))
        // Zero crossings in a second: about 2 x 880.
        let crossings = (48000..<96000).filter { (full[$0] < 0) != (full[$0 + 1] < 0) }.count
        #expect(abs(crossings - 1760) < 20, "\(crossings) zero crossings in a second")
        #expect(abs(rms(quiet, from: 1, to: 3) / rms(full, from: 1, to: 3) - 0.5) < 0.02)
    }

    @Test("--audio silence gives a silent AAC track")
    func silence() throws {
        let folder = temporaryFolder()
        let out = try render(["--audio", "silence"], in: folder)
        let audio = try probe(out, stream: "a:0", entries: "codec_name,channels,duration")
        #expect(audio["codec_name"] == "aac" && audio["channels"] == "2")
        #expect(try samples(out).allSatisfy { abs($0) < 1e-4 })
    }

    @Test("GStreamer decodes both streams of the MP4 to the end")
    func gstreamer() throws {
        let folder = temporaryFolder()
        let out = try render(["--audio", try tone(seconds: 3, in: folder)], in: folder)
        let wav = folder.appendingPathComponent("gst.wav").path
        let r = try tool("gst-launch-1.0", ["filesrc", "location=\(out)", "!", "qtdemux", "name=d",
                                            "d.video_0", "!", "queue", "!", "avdec_h264", "!", "fakesink",
                                            "d.audio_0", "!", "queue", "!", "avdec_aac", "!", "audioconvert", "!", "wavenc", "!", "filesink", "location=\(wav)"])
        #expect(r.status == 0 && r.stdout.contains("Got EOS"), "\(r.stdout)\n\(r.stderr)")
        let decoded = try probe(wav, stream: "a:0", entries: "duration")
        #expect(abs((Double(decoded["duration"] ?? "") ?? 0) - 7) <= 1024.0 / 48000 + 1e-3, "\(decoded)")
    }

    @Test("a file with no audio, a file that is no audio, a start past the end, a missing file: exit 2, named, nothing written")
    func errors() throws {
        let folder = temporaryFolder()
        let text = folder.appendingPathComponent("song.mp3").path
        try "not music".write(toFile: text, atomically: true, encoding: .utf8)
        let cases: [(String, [String], String)] = [
            (example("a.jpg"), [], "no audio stream"),
            (text, [], "song.mp3"),
            (try tone(seconds: 3, in: folder), ["--set", "audio.start=5"], "past its end"),
            (folder.appendingPathComponent("missing.mp3").path, [], "no such file"),
        ]
        for (file, extra, message) in cases {
            let out = folder.appendingPathComponent("out.mp4").path
            let r = try segue(["render"] + small + [example("a.jpg"), "--audio", file] + extra + ["-o", out])
            #expect(r.status == 2, "\(file): \(r.stderr)")
            #expect(r.stderr.contains((file as NSString).lastPathComponent) && r.stderr.contains(message), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("PNG, framemd5 and sheet outputs ignore the soundtrack")
    func otherFormatsIgnoreAudio() throws {
        let folder = temporaryFolder()
        let plain = try segue(["render"] + small + [example("a.jpg"), example("b.png"), "-o", "-"])
        let withAudio = try segue(["render"] + small + [example("a.jpg"), example("b.png"), "--audio", "missing.mp3", "-o", "-"])
        #expect(plain.status == 0 && withAudio.status == 0 && plain.stdout == withAudio.stdout, "\(withAudio.stderr)")
        _ = folder
    }

    @Test("a story file and a manifest job take an audio section, its file relative to them")
    func storyAndManifest() throws {
        let folder = temporaryFolder()
        let music = folder.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        _ = try tone(seconds: 4, in: music)
        let story = folder.appendingPathComponent("story.yaml").path
        try """
            preset: crossfade
            set: {canvas.size: [180, 320], canvas.scale: 0.5, hold: 1}
            audio: {file: music/tone-440.0-4.0.mp3, fadeOut: 0.5, volume: 0.8}
            slides:
              - image: \(example("a.jpg"))
              - image: \(example("b.png"))
            """.write(toFile: story, atomically: true, encoding: .utf8)
        let elsewhere = temporaryFolder()
        let out = elsewhere.appendingPathComponent("story.mp4").path
        let r = try run(segueBinary, ["render", "--story", story, "-o", out], in: elsewhere)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try probe(out, stream: "a:0", entries: "codec_name")["codec_name"] == "aac")

        let manifest = folder.appendingPathComponent("batch.yaml").path
        try """
            jobs:
              - inputs: [\(example("a.jpg")), \(example("b.png"))]
                preset: crossfade
                set: {canvas.size: [180, 320], canvas.scale: 0.5, hold: 1}
                audio: music/tone-440.0-4.0.mp3
                output: one.mp4
              - inputs: [\(example("a.jpg"))]
                preset: crossfade
                set: {canvas.size: [180, 320], canvas.scale: 0.5, hold: 1}
                audio: silence
                output: two.mp4
            """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let b = try run(segueBinary, ["batch", manifest], in: elsewhere)
        #expect(b.status == 0, "\(b.stderr)")
        for name in ["one.mp4", "two.mp4"] {
            #expect(try probe(folder.appendingPathComponent(name).path, stream: "a:0", entries: "codec_name")["codec_name"] == "aac", "\(name)")
        }
    }

    @Test("--resume keeps an MP4 made with the same music and renders it again when the music changes")
    func resumeFollowsTheMusic() throws {
        let folder = temporaryFolder()
        let music = folder.appendingPathComponent("music.mp3").path
        try FileManager.default.copyItem(atPath: try tone(seconds: 3, in: folder), toPath: music)
        let arguments = ["render"] + small + [example("a.jpg"), "--audio", music, "--resume", "-o", folder.appendingPathComponent("r.mp4").path]
        #expect(try segue(arguments).stderr.contains("wrote"))
        #expect(try segue(arguments).stderr.contains("kept"))
        try FileManager.default.removeItem(atPath: music)
        try FileManager.default.copyItem(atPath: try tone(seconds: 3, frequency: 660, in: folder), toPath: music)
        let third = try segue(arguments)
        #expect(third.status == 0 && third.stderr.contains("wrote"), "\(third.stderr)")
    }

    @Test("memory stays flat with the music's length: a 10-minute file costs what a 3-second one does")
    func flatMemory() throws {
        let folder = temporaryFolder()
        let long = try tone(seconds: 600, in: folder), short = try tone(seconds: 3, in: folder)
        var peaks: [Int] = []
        for music in [short, long] {
            let out = folder.appendingPathComponent("m.mp4").path
            let (r, peak) = try measured(["render"] + small + ["--set", "hold=10", example("a.jpg"), "--audio", music, "--force", "-o", out], timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            peaks.append(peak)
        }
        #expect(peaks[1] - peaks[0] < 10, "peak \(peaks[0]) MB with 3 s of music, \(peaks[1]) MB with 10 minutes")
    }
}

@Suite("iPhone photos on the command line")
struct HEICCLITests {
    @Test("segue render IMG_0001.HEIC works from the installed binary; a cut-short HEIC is an error naming it, exit 1, nothing written")
    func heic() throws {
        let folder = temporaryFolder()
        let heic = folder.appendingPathComponent("IMG_0001.HEIC").path
        let made = try tool("heif-enc", ["-q", "90", example("a.jpg"), "-o", heic])
        #expect(made.status == 0, "\(made.stderr)")
        let out = folder.appendingPathComponent("photo.mp4").path
        let r = try run(try installedAlone(), ["render", "--size", "180x320", "--set", "canvas.scale=0.5", "--set", "hold=0.5", heic, example("b.png"), "-o", out], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: heic)))
        let cut = folder.appendingPathComponent("cut.heic").path
        try Data(bytes.prefix(bytes.count * 2 / 3)).write(to: URL(fileURLWithPath: cut))
        let broken = folder.appendingPathComponent("broken.mp4").path
        let b = try run(try installedAlone(), ["render", "--size", "180x320", "--set", "canvas.scale=0.5", cut, "-o", broken], in: folder)
        #expect(b.status == 1 && b.stderr.contains("cut.heic"), "\(b.status): \(b.stderr)")
        #expect(!FileManager.default.fileExists(atPath: broken))
    }
}
