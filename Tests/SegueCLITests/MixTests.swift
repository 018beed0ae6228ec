import Foundation
import Testing

/// The level in dBFS of the `frequency` component of `x` over `length` seconds from `from`
/// (a single-bin DFT; with a whole number of periods in the window, other tones in whole
/// periods do not leak into it).
func toneLevel(_ x: [Float], frequency: Double, from: Double, length: Double = 0.05) -> Double {
    let a = max(0, Int(from * 48000)), n = Int(length * 48000)
    guard a + n <= x.count else { return -200 }
    var re = 0.0, im = 0.0
    for i in 0..<n {
        let phase = 2 * Double.pi * frequency * Double(i) / 48000
        re += Double(x[a + i]) * cos(phase)
        im += Double(x[a + i]) * sin(phase)
    }
    return 20 * log10(2 * (re * re + im * im).squareRoot() / Double(n) + 1e-12)
}

/// FFmpeg's ebur128 summary of a file's audio: integrated loudness (LUFS) and true peak (dBTP).
func loudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
    let r = try tool("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-map", "0:a", "-af", "ebur128=peak=true", "-f", "null", "-"])
    let summary = r.stderr.components(separatedBy: "Summary:").last ?? ""
    func value(_ label: String) -> Double {
        guard let line = summary.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return .nan }
        return Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? .nan
    }
    return (value("I:"), value("Peak:"))
}

@Suite("The soundtrack's mix: clip sound and voices over ducked music, crossfades, loudness")
struct MixTests {
    /// A clip of `seconds` whose sound is a tone of `frequency` Hz (FFmpeg's sine: amplitude 1/8), AAC in MP4.
    func toneClip(_ name: String, frequency: Double, seconds: Double, in folder: URL) throws -> String {
        try makeClip(name, "testsrc2=s=64x64:r=30:d=\(seconds)", ["-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=\(seconds)",
                                                                  "-c:v", "libx264", "-c:a", "aac", "-shortest"], in: folder)
    }

    /// Renders a story (its text given after the preset and canvas lines) to an MP4 and
    /// returns the left channel of its sound.
    func render(_ body: String, name: String, in folder: URL) throws -> (path: String, left: [Float]) {
        let text = "preset: crossfade\nset: {canvas.size: [64, 64], fps: 30, transition.duration: 0}\n" + body
        let file = folder.appendingPathComponent(name + ".yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent(name + ".mp4").path
        let r = try segue(["render", "--story", file.path, "-o", out, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        return (out, try samples(out))
    }

    /// The music's level in 50 ms windows every 25 ms over `range` (seconds).
    func levels(_ x: [Float], _ frequency: Double, over range: ClosedRange<Double>) -> [Double] {
        stride(from: range.lowerBound, through: range.upperBound, by: 0.025).map { toneLevel(x, frequency: frequency, from: $0) }
    }

    @Test("music ducks 12 ± 1 dB under a clip's sound, along monotonic ramps over attack and release, and comes back to its level; duck: 0 leaves it")
    func duckUnderClip() throws {
        let folder = temporaryFolder()
        let music = try tone(seconds: 10, frequency: 440, ext: "wav", in: folder)
        _ = try toneClip("talk.mp4", frequency: 1000, seconds: 3, in: folder)
        let slides = """
            slides:
              - image: \(example("a.jpg"))
                hold: 2
                transition: cut
              - clip: talk.mp4
                audio: true
                transition: cut
              - image: \(example("b.png"))
                hold: 2

            """
        let (path, ducked) = try render("audio: {file: \(music), fadeOut: 0}\n" + slides, name: "ducked", in: folder)
        let alone = toneLevel(ducked, frequency: 440, from: 0.5, length: 1)
        let right = try samples(path, channel: 1)
        #expect(abs(toneLevel(right, frequency: 440, from: 0.5, length: 1) - alone) < 0.05, "mono music plays alike in both channels")
        #expect(abs(toneLevel(right, frequency: 440, from: 2.3, length: 2.6) - toneLevel(ducked, frequency: 440, from: 2.3, length: 2.6)) < 0.05)
        let under = toneLevel(ducked, frequency: 440, from: 2.3, length: 2.6)
        let after = toneLevel(ducked, frequency: 440, from: 5.6, length: 1)
        // Mono music plays at its own level (FFmpeg's sine: amplitude 1/8, -18.06 dBFS) in each channel.
        #expect(abs(alone - 20 * log10(0.125)) < 0.3, "music alone at \(alone) dBFS")
        #expect(abs(alone - under - 12) < 1, "music at \(alone) dB alone, \(under) dB under the clip")
        #expect(abs(after - alone) < 0.3, "music back at \(after) dB")
        #expect(abs(toneLevel(ducked, frequency: 1000, from: 2.5, length: 2) - 20 * log10(0.125)) < 0.5, "the clip's sound at its own level")
        let down = levels(ducked, 440, over: 1.95...2.25), up = levels(ducked, 440, over: 4.95...5.5)
        #expect(zip(down, down.dropFirst()).allSatisfy { $1 <= $0 + 0.1 }, "attack not monotonic: \(down)")
        #expect(zip(up, up.dropFirst()).allSatisfy { $1 >= $0 - 0.1 }, "release not monotonic: \(up)")
        #expect(down.first! - down.last! > 10 && up.last! - up.first! > 10, "ramps \(down) \(up)")

        let level = try render("audio: {file: \(music), fadeOut: 0, duck: 0}\n" + slides, name: "level", in: folder).left
        let kept = toneLevel(level, frequency: 440, from: 2.3, length: 2.6)
        #expect(abs(kept - alone) < 0.3, "duck: 0 leaves the music at \(kept) dB")
    }

    @Test("a voice track sounds from its time at its own level, trimmed by start and duration, and the music ducks under it")
    func voiceOver() throws {
        let folder = temporaryFolder()
        let music = try tone(seconds: 10, frequency: 440, ext: "wav", in: folder)
        let voice = try tone(seconds: 3, frequency: 1000, ext: "m4a", in: folder)
        let (_, x) = try render("""
            audio: {file: \(music), fadeOut: 0, attack: 0.1, release: 0.3}
            voice:
              - {file: \(voice), at: 1.5}
              - {file: \(voice), at: 5, start: 1, duration: 1, volume: 0.5}
            slides:
              - image: \(example("a.jpg"))
                hold: 7

            """, name: "voice", in: folder)
        let alone = toneLevel(x, frequency: 440, from: 0.5, length: 0.5)
        #expect(abs(alone - toneLevel(x, frequency: 440, from: 1.7, length: 2.5) - 12) < 1, "the music ducks under the first voice")
        #expect(abs(alone - toneLevel(x, frequency: 440, from: 5.15, length: 0.8) - 12) < 1, "and under the second")
        #expect(abs(toneLevel(x, frequency: 440, from: 4.82, length: 0.15) - alone) < 0.5, "and comes back between them")
        #expect(abs(toneLevel(x, frequency: 1000, from: 2, length: 2) - 20 * log10(0.125)) < 0.5, "the voice at its own level")
        #expect(abs(toneLevel(x, frequency: 1000, from: 5.2, length: 0.6) - 20 * log10(0.0625)) < 0.5, "volume 0.5: 6 dB down")
        // Where each sounds: the first from 1.5 s for its 3 s, the second for 1 s from 5 s.
        #expect(toneLevel(x, frequency: 1000, from: 1.4, length: 0.05) < -50 && toneLevel(x, frequency: 1000, from: 1.55, length: 0.05) > -19)
        #expect(toneLevel(x, frequency: 1000, from: 4.4, length: 0.05) > -19 && toneLevel(x, frequency: 1000, from: 4.55, length: 0.05) < -50)
        #expect(toneLevel(x, frequency: 1000, from: 5.9, length: 0.05) > -25 && toneLevel(x, frequency: 1000, from: 6.1, length: 0.05) < -50)
    }

    @Test("a click in a clip lands on the frame that shows it, within a millisecond, trimmed or not")
    func clickOnItsFrame() throws {
        let folder = temporaryFolder()
        // A white frame and a 10 ms burst of 1 kHz, both at 1 s of the clip.
        _ = try makeClip("click.mp4", "color=c=black:s=64x64:r=30:d=2,geq=lum='if(eq(N\\,30)\\,235\\,16)':cb=128:cr=128",
                         ["-f", "lavfi", "-i", "aevalsrc='0.5*sin(2*PI*1000*t)*between(t\\,1\\,1.01)':s=48000:d=2",
                          "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"], in: folder)
        for (trim, name) in [("", "whole"), ("\n    start: 0.5", "trimmed")] {
            let (out, x) = try render("""
                slides:
                  - image: \(example("a.jpg"))
                    hold: 2
                    transition: cut
                  - clip: click.mp4
                    audio: true
                    transition: cut\(trim)
                  - image: \(example("b.png"))
                    hold: 1

                """, name: name, in: folder)
            // The frame where the white one shows, from its luma.
            let stats = try tool("ffmpeg", ["-v", "error", "-i", out, "-vf", "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"])
            let lines = stats.stdout.split(separator: "\n").map(String.init)
            let white = stride(from: 0, to: lines.count - 1, by: 2).first { Double(lines[$0 + 1].split(separator: "=").last ?? "") ?? 0 > 200 }
            let frame = white.flatMap { Int(lines[$0].split(separator: " ").first?.dropFirst(6) ?? "") }
            let shown = Double(frame ?? -1) / 30
            // The burst's start: its energy's centre, less half its length.
            let from = Int((shown - 0.2) * 48000), to = Int((shown + 0.2) * 48000)
            var weight = 0.0, moment = 0.0
            for i in max(0, from)..<min(x.count, to) { weight += Double(x[i] * x[i]); moment += Double(x[i] * x[i]) * Double(i) }
            let heard = moment / weight / 48000 - 0.005
            #expect(frame == (name == "whole" ? 90 : 75), "\(name): the white frame is \(String(describing: frame))")
            #expect(abs(heard - shown) < 0.001, "\(name): the click is heard at \(heard) s, shown at \(shown) s")
        }
    }

    @Test("across a cube turn between two clips their sounds crossfade at equal power: no step above the tones' own, the summed power within 1 dB")
    func crossfadeAcrossACut() throws {
        let folder = temporaryFolder()
        _ = try toneClip("one.mp4", frequency: 1000, seconds: 3, in: folder)
        _ = try toneClip("two.mp4", frequency: 1500, seconds: 3, in: folder)
        let (_, x) = try render("""
            slides:
              - clip: one.mp4
                audio: true
                transition: {kind: stories-cube, duration: 1}
              - clip: two.mp4
                audio: true

            """, name: "turn", in: folder)
        // one.mp4 from 0 to 3 s, two.mp4 from 2 s (the turn's start) to 5 s.
        let steady = toneLevel(x, frequency: 1000, from: 1, length: 0.5)
        var worst = 0.0
        for t in stride(from: 2.0, through: 2.95, by: 0.05) {
            let a = pow(10, toneLevel(x, frequency: 1000, from: t) / 10), b = pow(10, toneLevel(x, frequency: 1500, from: t) / 10)
            worst = max(worst, abs(10 * log10(a + b) - steady))
        }
        #expect(worst < 1, "the summed power strays \(worst) dB from one tone's through the turn")
        #expect(toneLevel(x, frequency: 1000, from: 3.2, length: 0.5) < -50 && toneLevel(x, frequency: 1500, from: 1.5, length: 0.45) < -50)
        let own = largestStep(x, from: 1, to: 1.5) + largestStep(x, from: 3.5, to: 4)
        let turn = largestStep(x, from: 1.9, to: 3.1)
        #expect(turn <= own, "a step of \(turn) through the turn; the tones' own are \(own) together")
    }

    @Test("loudness: -14 measures -14 ± 0.5 LUFS with FFmpeg's ebur128 and keeps the true peak at or under -1 dBTP, for a tone and for peaky noise")
    func loudnessTarget() throws {
        let folder = temporaryFolder()
        let quiet = try tone(seconds: 10, frequency: 440, ext: "wav", in: folder)
        let peaky = folder.appendingPathComponent("peaky.wav").path
        let made = try tool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=c=pink:a=0.12:d=10:r=48000", "-f", "lavfi", "-i",
                                       "aevalsrc='0.95*sin(2*PI*2000*t)*lt(mod(t\\,0.5)\\,0.003)':d=10:s=48000",
                                       "-filter_complex", "[0][1]amix=inputs=2:normalize=0", "-ac", "2", peaky])
        #expect(made.status == 0, "\(made.stderr)")
        // The tone needs a plain gain; the noise with clicks (-22 LUFS, true peak -3 dBTP) is
        // limited on its way up.
        for (music, name) in [(quiet, "tone"), (peaky, "peaky")] {
            let (out, _) = try render("audio: {file: \(music), loudness: -14}\nslides:\n  - image: \(example("a.jpg"))\n    hold: 6\n", name: name, in: folder)
            let measured = try loudness(out)
            #expect(abs(measured.integrated + 14) <= 0.5 && measured.truePeak <= -1, "\(name): \(measured.integrated) LUFS, true peak \(measured.truePeak) dBTP")
        }
        // Off by default: the tone keeps its level.
        let (plain, _) = try render("audio: \(quiet)\nslides:\n  - image: \(example("a.jpg"))\n    hold: 6\n", name: "plain", in: folder)
        #expect(try loudness(plain).integrated < -18, "no normalisation unless asked")
    }

    @Test("memory stays flat with the video's sound: ten minutes of music under ten clips costs what a 10-second story does")
    func flatMemory() throws {
        let folder = temporaryFolder()
        let music = try tone(seconds: 5, frequency: 440, ext: "wav", in: folder)
        _ = try toneClip("c.mp4", frequency: 1000, seconds: 2, in: folder)
        func story(_ name: String, hold: Double, clips: Int) throws -> String {
            var text = "preset: crossfade\nset: {canvas.size: [32, 32], fps: 2, transition.duration: 0}\naudio: \(music)\nslides:\n"
            text += "  - image: \(example("a.jpg"))\n    hold: \(hold)\n    transition: cut\n"
            for _ in 0..<clips { text += "  - clip: c.mp4\n    audio: true\n    transition: cut\n  - image: \(example("b.png"))\n    hold: \(hold)\n    transition: cut\n" }
            let file = folder.appendingPathComponent(name + ".yaml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        var peaks: [Int] = []
        for file in [try story("short", hold: 4, clips: 1), try story("long", hold: 50, clips: 10)] {
            let (r, peak) = try measured(["render", "--story", file, "--force", "-o", folder.appendingPathComponent("m.mp4").path], timeout: 300)
            #expect(r.status == 0, "\(r.stderr)")
            peaks.append(peak)
        }
        #expect(peaks[1] - peaks[0] < 15, "peak \(peaks[0]) MB for 10 s, \(peaks[1]) MB for ten minutes with ten clips")
    }

    @Test("a voice that is missing, holds no sound, cannot be decoded or starts past its end: exit 2, named with its line, nothing written")
    func badVoices() throws {
        let folder = temporaryFolder()
        let voice = try tone(seconds: 2, frequency: 1000, ext: "wav", in: folder)
        let text = folder.appendingPathComponent("notes.wav").path
        try "not sound".write(toFile: text, atomically: true, encoding: .utf8)
        let story = folder.appendingPathComponent("bad.yaml")
        try """
            preset: crossfade
            set: {canvas.size: [64, 64]}
            voice:
              - gone.wav
              - file: \(example("a.jpg"))
              - file: notes.wav
              - {file: \(voice), start: 5}
            slides:
              - image: \(example("a.jpg"))

            """.write(to: story, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("bad.mp4").path
        let r = try segue(["render", "--story", story.path, "-o", out])
        #expect(r.status == 2, "exit \(r.status): \(r.stderr)")
        for (line, named) in [(4, "gone.wav"), (5, "a.jpg"), (6, "notes.wav"), (7, "voice[4].start")] {
            #expect(r.stderr.contains("line \(line):") && r.stderr.contains(named), "line \(line), \(named) in: \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))

        // A voice placed after the video's end is a mistake, not silence.
        try """
            preset: crossfade
            set: {canvas.size: [64, 64], hold: 2, transition.duration: 0}
            voice: [{file: \(voice), at: 9}]
            slides:
              - image: \(example("a.jpg"))

            """.write(to: story, atomically: true, encoding: .utf8)
        let late = try segue(["render", "--story", story.path, "-o", out])
        #expect(late.status == 2 && late.stderr.contains("voice[1]") && late.stderr.contains("line 3") && late.stderr.contains("after the video ends"), "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

@Suite("Voice tracks in a manifest job")
struct BatchVoiceTests {
    @Test("a manifest job's voice: is read relative to the manifest and heard where it is placed; a missing one is listed by --dry-run")
    func batchVoice() throws {
        let folder = temporaryFolder()
        let sounds = folder.appendingPathComponent("sounds")
        try FileManager.default.createDirectory(at: sounds, withIntermediateDirectories: true)
        _ = try tone(seconds: 1, frequency: 1000, ext: "wav", in: sounds)
        let manifest = folder.appendingPathComponent("jobs.yaml")
        try """
            jobs:
              - output: out/one.mp4
                preset: crossfade
                set: {canvas.size: [64, 64]}
                inputs: [\(example("a.jpg"))]
                voice: [{file: sounds/tone-1000.0-1.0.wav, at: 0.5}]
              - output: out/two.mp4
                inputs: [\(example("a.jpg"))]
                voice: [sounds/nothing.wav]

            """.write(to: manifest, atomically: true, encoding: .utf8)
        let dry = try segue(["batch", manifest.path, "--dry-run"])
        let table = dry.stdout + dry.stderr
        #expect(dry.status == 2 && table.contains("line 9") && table.contains("nothing.wav"), "\(table)")
        let lines = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        try lines.prefix(6).joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let r = try segue(["batch", manifest.path])
        #expect(r.status == 0, "\(r.stderr)")
        let x = try samples(folder.appendingPathComponent("out/one.mp4").path)
        #expect(toneLevel(x, frequency: 1000, from: 0.3, length: 0.15) < -50 && abs(toneLevel(x, frequency: 1000, from: 0.7, length: 0.5) - 20 * log10(0.125)) < 0.5)
    }
}
