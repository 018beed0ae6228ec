import CSegueAV
import Foundation

/// The music's beat grid: its tempo, its beats and bar starts (downbeats) with the meter they
/// were found in, its onsets, and how sure the tracker is. Read from anything FFmpeg decodes
/// (one channel at 48 kHz) by libaubio's tempo tracker and onset detector (onsets to 2.7 ms),
/// then fitted as a grid (`init(beats:onsets:bpm:length:accent:)`), with the meter,
/// 3 or 4, and the bar's first beat from the beats' accents (each beat's loudness over the
/// 60 ms after it): the phase whose beats are loudest against the others, in the meter where
/// that stands out most.
public struct BeatGrid: Equatable, Sendable, Codable {
    public var bpm: Double
    public var beats: [Double]
    public var downbeats: [Double]
    /// Beats in a bar (3 or 4).
    public var meter: Int
    public var onsets: [Double]
    /// How clearly the sound keeps the grid, 0 to 1: the share of its onsets' loudness (how
    /// much each rises) on a beat beyond what chance puts there (an onset lands within `snap`
    /// of some beat of a fast grid by chance alone), times the share of beats with an onset. A click track scores near
    /// 1, music with a beat about 0.5, speech, noise and silence near 0.
    public var confidence: Double
    /// The sound's length in seconds.
    public var seconds: Double

    /// How far an onset may be from a beat to be taken as its time.
    static let snap = 0.035
    /// Onsets (and tracked beats) tried as the grid's phase.
    static let phaseCandidates = 64
    /// Seconds of sound after a beat whose loudness is its accent.
    static let accentWindow = 0.06
    /// The tempo the grids are weighed towards, and how widely (octaves): a prior on the
    /// logarithm of the tempo, as beat trackers use, so that a hi-hat's eighths do not double
    /// a song's tempo nor a half-time feel halve it where the onsets fit both about as well.
    static let likelyBPM = 120.0, tempoSpread = 0.8
    /// Onsets on the grid below which it is no beat at all.
    static let fewestOnsets = 8

    /// A grid as it is given.
    init(bpm: Double, beats: [Double], downbeats: [Double], meter: Int, onsets: [Double], confidence: Double, seconds: Double) {
        (self.bpm, self.beats, self.downbeats, self.meter, self.onsets, self.confidence, self.seconds) = (bpm, beats, downbeats, meter, onsets, confidence, seconds)
    }

    /// The grid of the sound of `path`; an `ExportError` names the file when it has no sound
    /// FFmpeg decodes, or libaubio does not load.
    public static func analyse(_ path: String) throws -> BeatGrid {
        guard FileManager.default.fileExists(atPath: path) else { throw ExportError.beats(path: path, reason: "no such file") }
        var error = SegueAVError()
        var samples: UnsafeMutablePointer<Float>?
        var count: Int64 = 0
        guard segue_audio_mono(path, &samples, &count, &error) == 0, let samples else {
            throw ExportError.beats(path: path, reason: error.text)
        }
        defer { free(samples) }
        var found = SegueBeats()
        guard segue_beats_analyse(samples, count, 48000, &found, &error) == 0 else {
            throw ExportError.beats(path: path, reason: error.text)
        }
        defer { segue_beats_free(&found) }
        let raw = Array(UnsafeBufferPointer(start: found.beats, count: Int(found.beat_count)))
        let onsets = Array(UnsafeBufferPointer(start: found.onsets, count: Int(found.onset_count)))
        let sound = UnsafeBufferPointer(start: samples, count: Int(count))
        return BeatGrid(beats: raw, onsets: onsets, bpm: found.bpm, length: Double(count) / 48000) { time in
            let start = Int((time * 48000).rounded(.down))
            let from = min(max(0, start), sound.count), to = min(max(0, start + Int(accentWindow * 48000)), sound.count)
            guard from < to else { return 0 }
            var sum = 0.0
            for i in from..<to { sum += Double(sound[i]) * Double(sound[i]) }
            return (sum / Double(to - from)).squareRoot()
        }
    }

    /// The grid from aubio's tempo and onsets over `length` seconds, `accent` giving the
    /// loudness after a time. aubio's tracker marks beats sparsely on sharp sounds, so the beats
    /// are a regular grid: its period the median of the onsets' intervals near a whole number
    /// of aubio's beat periods, its phase the one most onsets fall on; each beat then moved to
    /// the onset within `snap` of it, if any (a swung or played beat keeps its own time).
    init(beats raw: [Double], onsets: [Double], bpm: Double, length: Double, accent: (Double) -> Double) {
        self.onsets = onsets
        seconds = length
        confidence = 0
        var period = bpm > 0 ? 60 / bpm : 0, chosen = period
        var estimates: [Double] = []
        if period > 0 {
            // Every onset against those up to four beats after it (a swung note between two
            // beats is no beat's interval, the next beat's onset is).
            for i in onsets.indices {
                var j = i + 1
                while j < onsets.count, onsets[j] - onsets[i] <= 4.5 * period {
                    let d = onsets[j] - onsets[i], k = (d / period).rounded()
                    if k >= 1, abs(d / k - period) < 0.08 * period { estimates.append(d / k) }
                    j += 1
                }
            }
        }
        if estimates.count >= 3 { period = estimates.sorted()[estimates.count / 2] }
        guard period > 0, !onsets.isEmpty else {
            (self.bpm, beats, downbeats, meter) = (bpm, [], [], 4)
            return
        }
        // The phase most onsets fall on (each onset tried, and aubio's beats): how many fall
        // on a beat, and how loud they are together.
        // An onset's loudness: how much louder the sound is after it than before it.
        let loudness = onsets.map { max(0, accent($0) - accent($0 - BeatGrid.accentWindow)) }
        func fit(_ phase: Double) -> (count: Int, loudness: Double) {
            var count = 0, sum = 0.0
            for (t, a) in zip(onsets, loudness) {
                let off = (t - phase) / period
                if abs(off - off.rounded()) * period <= BeatGrid.snap { count += 1; sum += a }
            }
            return (count, sum)
        }
        // The tracker's period, or half, twice, 3/2 or 2/3 of it (its octave and swing errors),
        // and the phase: the grid whose beats' onsets rise the most, weighed by how many of its
        // beats have one and by how likely its tempo is.
        var phase = onsets[0], bestGrid = -1.0
        let tracked = period, span = onsets[onsets.count - 1] - onsets[0]
        for candidate in [tracked, tracked / 2, tracked * 2, tracked * 1.5, tracked * 2 / 3] {
            period = candidate
            var bestPhase = onsets[0], best = (count: -1, loudness: -1.0)
            // The phase repeats each period: the first onsets and beats give every candidate
            // it needs, so the search stays linear in a long track's onsets.
            for start in onsets.prefix(BeatGrid.phaseCandidates) + raw.prefix(BeatGrid.phaseCandidates) {
                let s = fit(start)
                if s.loudness > best.loudness { (bestPhase, best) = (start, s) }
            }
            let slots = max(1, (span / candidate).rounded() + 1)
            let octaves = log2(60 / candidate / BeatGrid.likelyBPM) / BeatGrid.tempoSpread
            let weighed = best.loudness * min(1, Double(best.count) / slots) * exp(-0.5 * octaves * octaves)
            if weighed > bestGrid * 1.01 { (bestGrid, phase, chosen) = (weighed, bestPhase, candidate) }
        }
        period = chosen
        // Period and phase by least squares over the onsets on the grid (each onset at its
        // beat's number, weighed by how much it rises: a faint onset in a decay pulls
        // little), twice: the tempo from the whole track, not from neighbours.
        for _ in 0..<2 {
            var count = 0, n = 0.0, sk = 0.0, st = 0.0, skk = 0.0, skt = 0.0
            for (t, w) in zip(onsets, loudness) where w > 0 {
                let k = ((t - phase) / period).rounded()
                guard abs(t - phase - k * period) <= 0.2 * period else { continue }
                count += 1; n += w; sk += w * k; st += w * t; skk += w * k * k; skt += w * k * t
            }
            let d = n * skk - sk * sk
            guard count >= 4, d > 0 else { break }
            period = (n * skt - sk * st) / d
            phase = (st - period * sk) / n
        }
        self.bpm = 60 / period
        // The first beat: the grid's at or after the start, or just before it (then on an onset at 0).
        var first = phase - (phase / period).rounded(.down) * period
        if first > period - BeatGrid.snap { first -= period }
        var grid: [Double] = []
        var t = first
        while t < length {
            let near = BeatGrid.nearest(t, in: onsets).flatMap { abs($0 - t) <= BeatGrid.snap ? $0 : nil }
            grid.append(near ?? t)
            t += period
        }
        beats = grid
        let accents = grid.map(accent)
        var best = (meter: 4, phase: 0, contrast: 0.0)
        for meter in [4, 3] where accents.count >= 2 * meter {
            for phase in 0..<meter {
                var on = 0.0, onCount = 0, off = 0.0, offCount = 0
                for (k, a) in accents.enumerated() {
                    if (k - phase) % meter == 0 { on += a; onCount += 1 } else { off += a; offCount += 1 }
                }
                let contrast = offCount > 0 && off > 0 ? (on / Double(onCount)) / (off / Double(offCount)) : 0
                if contrast > best.contrast * 1.05 { best = (meter, phase, contrast) }
            }
        }
        meter = best.meter
        downbeats = grid.enumerated().filter { ($0.offset - best.phase) % best.meter == 0 }.map(\.element)
        confidence = BeatGrid.clarity(onsets: onsets, loudness: loudness, beats: grid, period: period)
    }

    /// `confidence` of the grid `beats` (of `period` seconds) for `onsets`, each weighed by
    /// `loudness` (how much it rises).
    static func clarity(onsets: [Double], loudness: [Double], beats: [Double], period: Double) -> Double {
        func near(_ t: Double, _ list: [Double]) -> Bool { nearest(t, in: list).map { abs($0 - t) <= snap } ?? false }
        let on = onsets.indices.filter { near(onsets[$0], beats) }
        let total = loudness.reduce(0, +)
        guard on.count >= fewestOnsets, !beats.isEmpty, total > 0 else { return 0 }
        let chance = min(1, 2 * snap / period)
        guard chance < 1 else { return 0 }
        let share = on.reduce(0) { $0 + loudness[$1] } / total
        let beyond = max(0, (share - chance) / (1 - chance))
        let covered = Double(beats.filter { near($0, onsets) }.count) / Double(beats.count)
        return beyond * covered
    }

    /// The time in `sorted` nearest `time`.
    static func nearest(_ time: Double, in sorted: [Double]) -> Double? {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < time { low = middle + 1 } else { high = middle }
        }
        let candidates = [low - 1, low].filter(sorted.indices.contains).map { sorted[$0] }
        return candidates.min { abs($0 - time) < abs($1 - time) }
    }
}
