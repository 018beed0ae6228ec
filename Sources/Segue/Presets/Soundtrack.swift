import CSegueAV
import Foundation

/// A sound placed on the video's timeline: a clip's own sound or a voice track. The `part`
/// of the file (always of a known length) is heard from `at` seconds of the video, with
/// equal-power fades over the first `fadeIn` and the last `fadeOut` seconds.
public struct Sound: Sendable, Equatable {
    public var path: String
    public var part: Span
    public var at: Double
    public var volume: Double
    public var fadeIn: Double
    public var fadeOut: Double
    /// The shortest fade, so a sound never starts or stops with a click.
    static let edge = 0.02

    /// Seconds heard.
    public var length: Double { part.length ?? 0 }

    /// Where it sounds, in seconds of the video.
    public var span: ClosedRange<Double> { at...(at + length) }
}

/// A voice track of a story: a file heard from `at` seconds of the video, the music ducking
/// under it as under a clip's sound.
///
/// ```yaml
/// voice:
///   - {file: intro.m4a, at: 0.5, volume: 1}
///   - file: outro.wav
///     at: 12
///     start: 1.5        # seconds into the file
///     duration: 4       # seconds of it (default: to its end)
/// ```
public struct Voice: Sendable, Equatable {
    public var file: String
    /// Seconds of the video where it starts.
    public var at: Double
    public var volume: Double
    /// The part of the file heard: from `start` seconds into it, for `duration` or to its end.
    public var part: Span
    /// The file's sound from `start` to its end, in seconds; nil when the file does not say.
    public var available: Double?
    /// Its key (`voice[2]`) and where it is written, for messages.
    public var key = "voice"
    public var origin = ConfigOrigin.builtIn

    public init(file: String, at: Double = 0, volume: Double = 1, start: Double = 0, duration: Double? = nil, available: Double? = nil) {
        self.file = file
        self.at = at
        self.volume = volume
        self.part = Span(start: start, length: duration)
        self.available = available
    }

    /// A story's `voice:` list (files resolved against the story): each file checked to hold
    /// sound FFmpeg decodes past its `start`; every problem reported with its line.
    public static func list(_ node: ConfigNode, key: String) throws -> [Voice] {
        guard case let .sequence(items) = node.value else {
            throw PresetError.wrongType(key: key, origin: node.origin, found: ConfigReader.kind(of: node), expected: "a list of voice tracks, each a file or {file, at, volume, start, duration}")
        }
        var voices: [Voice] = [], problems: [PresetError] = []
        for (index, item) in items.enumerated() {
            do { voices.append(try read(item, key: "\(key)[\(index + 1)]")) } catch let error as PresetError { problems += error.all }
        }
        if let first = problems.first { throw problems.count == 1 ? first : .several(problems) }
        return voices
    }

    static func read(_ item: ConfigNode, key: String) throws -> Voice {
        var node = item
        if case .scalar = item.value { node = ConfigNode(.mapping([(key: "file", value: item)]), origin: item.origin) }
        var r = try ConfigReader(node, path: key)
        let file = try r.requiredText("file", expected: "an audio file (MP3, M4A, WAV, FLAC, Ogg), relative to the story", "The voice's audio file, relative to the story.")
        var voice = Voice(file: file)
        voice.key = key
        voice.origin = item.origin
        voice.at = try r.number("at", default: 0, in: 0...86_400, "Seconds of the video where the voice starts.")
        voice.volume = try r.number("volume", default: 1, in: 0...16, "Linear gain of the voice.")
        voice.part.start = try r.number("start", default: 0, in: 0...86_400, "Seconds into the file where the voice starts.")
        if node["duration"] != nil {
            voice.part.end = .after(try r.number("duration", default: 0, in: 0.001...86_400, "Seconds of the file heard (default: to its end)."))
        }
        try r.finish()
        var isFolder: ObjCBool = false
        let fileNode = node["file"] ?? node
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue else {
            throw PresetError.invalid(key: key + ".file", origin: fileNode.origin, value: "'\(file)'",
                                      expected: isFolder.boolValue ? "an audio file, not a folder" : "an audio file that exists (MP3, M4A, WAV, FLAC or Ogg)")
        }
        var error = SegueAVError()
        var length = -1.0
        let status = segue_audio_probe(file, voice.part.start, &length, &error)
        if length >= 0, voice.part.start >= length {
            throw PresetError.invalid(key: key + ".start", origin: (node["start"] ?? node).origin, value: format(voice.part.start),
                                      expected: String(format: "a time before the end of '%@' (it lasts %.2f s)", file, length))
        }
        guard status == 0 else {
            throw PresetError.invalid(key: key + ".file", origin: fileNode.origin, value: "'\(file)'",
                                      expected: "a file with an audio stream FFmpeg decodes (\(error.text))")
        }
        voice.available = length >= 0 ? length - voice.part.start : nil
        return voice
    }
}

/// Everything the MP4's soundtrack mixes: the music, and the sounds placed on the timeline,
/// with where the music ducks under them.
public struct Soundtrack: Sendable, Equatable {
    public var music: Preset.AudioSettings
    public var sounds: [Sound]
    /// Seconds of the video where the music is lowered, in order and apart: the sounds'
    /// spans, joined where the music would not have time to come back and go down again.
    public var ducks: [ClosedRange<Double>]

    /// Whether the MP4 gets an audio track: music (or silence asked for), or a sound.
    public var hasTrack: Bool { music.source != nil || !sounds.isEmpty }

    public init(music: Preset.AudioSettings, sounds: [Sound] = []) {
        self.music = music
        self.sounds = sounds
        ducks = music.duck < 0 && music.file != nil ? Soundtrack.ducks(sounds.map(\.span), gap: music.attack + music.release) : []
    }

    /// `spans` joined where less than `gap` seconds lies between them, in order.
    static func ducks(_ spans: [ClosedRange<Double>], gap: Double) -> [ClosedRange<Double>] {
        var joined: [ClosedRange<Double>] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = joined.last, span.lowerBound < last.upperBound + gap {
                joined[joined.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                joined.append(span)
            }
        }
        return joined
    }

    /// `body` with the soundtrack as the C layer takes it, its strings alive for the call.
    func withConfig<R>(_ body: (UnsafePointer<SegueAudioConfig>) -> R) -> R {
        let paths = sounds.map { strdup($0.path) }
        defer { paths.forEach { free($0) } }
        let structures = zip(sounds, paths).map { sound, path in
            SegueSound(path: path, source_start: sound.part.start, at: sound.at, length: sound.length,
                       volume: sound.volume, fade_in: sound.fadeIn, fade_out: sound.fadeOut)
        }
        let ducks = self.ducks.map { SegueDuck(start: $0.lowerBound, end: $0.upperBound) }
        return withOptionalCString(music.file) { file in
            structures.withUnsafeBufferPointer { sounds in
                ducks.withUnsafeBufferPointer { ducks in
                    var config = SegueAudioConfig(path: file, start: music.start, volume: music.volume,
                                                  fade_in: music.fadeIn, fade_out: music.fadeOut, loop: music.loop ? 1 : 0,
                                                  sounds: sounds.baseAddress, sound_count: Int32(sounds.count),
                                                  ducks: ducks.baseAddress, duck_count: Int32(ducks.count),
                                                  duck_gain: pow(10, music.duck / 20), attack: music.attack, release: music.release,
                                                  loudness: music.loudness ?? 0, true_peak: music.truePeak - Soundtrack.codecHeadroom,
                                                  work: nil)
                    var work: Int64 = 0
                    defer { WorkCounts.add(.soundBlocks, Int(work)) }
                    return withUnsafeMutablePointer(to: &work) { work in
                        config.work = work
                        return withUnsafePointer(to: &config) { body($0) }
                    }
                }
            }
        }
    }

    /// Decibels the mix keeps below the true-peak ceiling asked for, for the AAC encoder's
    /// overshoot: the ceiling holds in the file, not only before encoding.
    static let codecHeadroom = 1.0

    /// The mix's loudness before any normalisation, as FFmpeg's ebur128 filter measures it,
    /// for a video of `frames` frames at `fps`.
    public func measure(frames: Int, fps: FrameRate) throws -> SegueLoudness {
        var result = SegueLoudness()
        var error = SegueAVError()
        let status = withConfig { segue_audio_measure($0, Int64(frames), Int32(fps.numerator), Int32(fps.denominator), "", &result, &error) }
        guard status == 0 else { throw ExportError.audio(path: music.file ?? sounds.first?.path ?? "(soundtrack)", reason: error.text) }
        return result
    }
}


extension Soundtrack {
    /// The music's peak level (0 to 1) in each of `count` equal parts of the first `seconds`
    /// of the video, as its file plays from `audio.start` (looped if set), before fades and
    /// ducking: a waveform to draw. Empty without music.
    public func musicLevels(seconds: Double, count: Int) throws -> [Float] {
        guard let path = music.file, count > 0 else { return [] }
        var levels = [Float](repeating: 0, count: count)
        var error = SegueAVError()
        let status = segue_audio_levels(path, music.start, seconds, music.loop ? 1 : 0, &levels, Int32(count), &error)
        guard status == 0 else {
            throw PresetError.invalid(key: "audio.file", origin: .builtIn, value: path, expected: "a file with an audio stream FFmpeg decodes (\(error.text))")
        }
        return levels
    }
}
