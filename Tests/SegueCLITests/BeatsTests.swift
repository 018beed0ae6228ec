import Foundation
import Testing

/// `segue beats` on click tracks FFmpeg makes (`aevalsrc`): a 1 kHz click on every beat, the
/// first of each bar of four three times as loud, at known tempos.
@Suite("Beats: the music's tempo, beats and bars, by libaubio")
struct BeatsTests {
    func beats(_ path: String) throws -> [String: Any] {
        let run = try segue("beats", path, "--json")
        try #require(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("tempo within 0.5 BPM, every click within 10 ms of a beat, the bars on the accents",
          arguments: [(90.0, false), (120, false), (128, false), (174, false), (120, true)])
    func clickTracks(bpm: Double, swing: Bool) throws {
        let folder = temporaryFolder()
        let found = try beats(try clickTrack(bpm: bpm, swing: swing, in: folder))
        let tempo = (found["bpm"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(tempo - bpm) <= 0.5, "\(bpm) BPM: found \(tempo)")
        let beats = (found["beats"] as? [NSNumber])?.map(\.doubleValue) ?? []
        let p = 60 / bpm
        let clicks = stride(from: 0.0, to: 20 - 0.05, by: p).map { $0 }
        for click in clicks {
            let nearest = beats.map { abs($0 - click) }.min() ?? .infinity
            #expect(nearest <= 0.010, "\(bpm) BPM: the click at \(click) s is \(nearest * 1000) ms from a beat")
        }
        // No beat between the clicks (a swung eighth is no beat).
        #expect(beats.allSatisfy { beat in clicks.contains { abs($0 - beat) <= 0.010 } || beat > 20 - p }, "\(beats)")
        let downbeats = (found["downbeats"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect((found["meter"] as? Int) == 4 && !downbeats.isEmpty, "\(found["meter"] ?? "?") \(downbeats)")
        for downbeat in downbeats where downbeat < 20 - 4 * p {
            let bar = downbeat / (4 * p)
            #expect(abs(bar - bar.rounded()) * 4 * p <= 0.010, "\(bpm) BPM: a downbeat at \(downbeat) s is no bar's start")
        }
    }

    @Test("drums with hi-hat eighths keep their tempo (not twice it); speech has no clear beat")
    func drumsAndSpeech() throws {
        let folder = temporaryFolder()
        // 100 BPM: a kick on every beat, a snare on 2 and 4, a soft hi-hat on every eighth.
        let p = 0.6
        let kick = "0.6*sin(2*PI*60*t)*exp(-mod(t\\,\(p))*12)"
        let snare = "0.35*sin(2*PI*190*t)*exp(-mod(t-\(p)\\,\(2 * p))*18)*gte(mod(t\\,\(2 * p))\\,\(p))"
        let hat = "0.08*sin(2*PI*7000*t)*exp(-mod(t\\,\(p / 2))*60)"
        let drums = try ffmpegMake("drums.wav", ["-f", "lavfi", "-i", "aevalsrc='\(kick)+\(snare)+\(hat)':s=44100:d=30"], in: folder)
        let found = try beats(drums)
        let tempo = (found["bpm"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(tempo - 100) <= 0.5 && ((found["confidence"] as? NSNumber)?.doubleValue ?? 0) >= 0.5, "\(tempo) BPM, \(found["confidence"] ?? "?")")
        let speech = folder.appendingPathComponent("speech.wav").path
        try succeed("espeak-ng", ["-w", speech, "A spoken track has words and pauses but no beat. It goes on for a while, sentence after sentence, as a voice over does."])
        #expect(((try beats(speech))["confidence"] as? NSNumber)?.doubleValue ?? 1 < 0.3)
    }

    @Test("a waltz's bars are threes")
    func waltz() throws {
        let found = try beats(try clickTrack(bpm: 150, meter: 3, in: temporaryFolder()))
        #expect((found["meter"] as? Int) == 3, "\(found["meter"] ?? "?")")
    }

    @Test("silence has no beats and no confidence; a missing file or one without sound exits 2 naming it")
    func nothingToFind() throws {
        let folder = temporaryFolder()
        let silence = try ffmpegMake("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono", "-t", "10"], in: folder)
        let found = try beats(silence)
        #expect((found["beats"] as? [Any])?.isEmpty == true && ((found["confidence"] as? NSNumber)?.doubleValue ?? 1) < 0.1, "\(found)")
        let missing = try segue("beats", folder.appendingPathComponent("gone.mp3").path)
        #expect(missing.status == 2 && missing.stderr.contains("gone.mp3") && missing.stderr.contains("no such file"), "\(missing.stderr)")
        let picture = try ffmpegMake("still.png", ["-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1"], in: folder)
        let still = try segue("beats", picture)
        #expect(still.status == 2 && still.stderr.contains("still.png") && still.stderr.contains("cannot find its beats"), "\(still.stderr)")
    }

    @Test("the text form says the tempo, meter and counts, then the times")
    func text() throws {
        let run = try segue("beats", try clickTrack(bpm: 120, seconds: 8, in: temporaryFolder()))
        #expect(run.status == 0 && run.stdout.hasPrefix("tempo: 120.") && run.stdout.contains("meter 4") && run.stdout.contains("\nbeats: 0.000 0.49"),
                "\(run.stdout)")
    }
}
