import Foundation

extension Preset {
    /// A video's soundtrack: music trimmed, faded and looped, or a silent track, or none.
    public struct AudioSettings: Equatable, Sendable {
        public enum Source: Equatable, Sendable {
            /// Any audio FFmpeg decodes (MP3, AAC/M4A, WAV, FLAC, Ogg/Opus).
            case file(String)
            /// A silent track, for platforms that want one.
            case silence
        }

        /// Nil: no audio track.
        public var source: Source?
        /// Seconds into the file where the soundtrack starts.
        public var start = 0.0
        /// Linear gain.
        public var volume = 1.0
        /// Seconds of fade from silence at the start.
        public var fadeIn = 0.0
        /// Seconds of fade to silence at the end.
        public var fadeOut = 1.0
        /// Repeats a file shorter than the video.
        public var loop = true
        /// Decibels the music is lowered by under a clip's sound or a voice (0: not lowered).
        public var duck = -12.0
        /// Seconds the music takes to go down, from the start of the sound it ducks under.
        public var attack = 0.2
        /// Seconds it takes to come back, from the end of that sound.
        public var release = 0.5
        /// The mix's integrated loudness in LUFS (EBU R128); nil: left as mixed.
        public var loudness: Double?
        /// The true-peak ceiling in dBTP the mix keeps to when `loudness` is set.
        public var truePeak = -1.0

        public init() {}

        /// The word that asks for a silent track instead of a file.
        public static let silenceName = "silence"

        /// Reads an `audio` section (its `file` already resolved against the file that gave it).
        init(reading a: inout ConfigReader) throws {
            let file = try a.text("file", default: "", "The music: an audio file FFmpeg decodes (MP3, AAC/M4A, WAV, FLAC, Ogg/Opus), relative to the file that names it, or 'silence' for a silent track; none by default (no audio track). `audio: FILE` is short for `audio: {file: FILE}`.")
            source = file.isEmpty ? nil : file == AudioSettings.silenceName ? .silence : .file(file)
            start = try a.number("start", default: 0, in: 0...86_400, "Seconds into the file where the soundtrack starts.")
            volume = try a.number("volume", default: 1, in: 0...16, "Linear gain of the music.")
            fadeIn = try a.number("fadeIn", default: 0, in: 0...3600, "Seconds of a smooth fade from silence at the start.")
            fadeOut = try a.number("fadeOut", default: 1, in: 0...3600, "Seconds of a smooth fade to silence at the end.")
            loop = try a.flag("loop", default: true, "Repeat a file shorter than the video (a short crossfade where it starts again).")
            duck = try a.number("duck", default: -12, in: -60...0, "Decibels the music is lowered by while a clip's own sound or a voice track plays (0: not at all).")
            attack = try a.number("attack", default: 0.2, in: 0...10, "Seconds the music takes to go down, from the start of the sound it ducks under.")
            release = try a.number("release", default: 0.5, in: 0...10, "Seconds the music takes to come back, from the end of that sound.")
            let target = try a.number("loudness", default: 0, in: -70...0, "The mix's integrated loudness in LUFS (EBU R128, measured then applied in two passes), e.g. -14; 0: left as mixed.")
            loudness = target < 0 ? target : nil
            truePeak = try a.number("truePeak", default: -1, in: -9...0, "The true-peak ceiling in dBTP the mix keeps to when loudness is set.")
        }

        /// The file's path, when the soundtrack is music.
        public var file: String? {
            if case let .file(path) = source { return path }
            return nil
        }
    }
}

extension ConfigNode {
    /// An `audio` setting made a mapping (`audio: FILE` is `audio: {file: FILE}`), its file
    /// resolved by `resolve` unless it is `silence` or absolute.
    static func audio(_ node: ConfigNode, resolve: (String) -> String) -> ConfigNode {
        func resolved(_ file: ConfigNode) -> ConfigNode {
            guard case let .scalar(text, quoted) = file.value, !text.isEmpty, text != Preset.AudioSettings.silenceName else { return file }
            return ConfigNode(.scalar(resolve(text), quoted: quoted), origin: file.origin)
        }
        switch node.value {
        case .scalar:
            return ConfigNode(.mapping([(key: "file", value: resolved(node))]), origin: node.origin)
        case let .mapping(pairs):
            return ConfigNode(.mapping(pairs.map { $0.key == "file" ? (key: "file", value: resolved($0.value)) : $0 }), origin: node.origin)
        case .sequence:
            return node
        }
    }

    /// This tree with its `audio` setting made a mapping, the file resolved by `resolve`.
    func resolvingAudio(_ resolve: (String) -> String) -> ConfigNode {
        guard case let .mapping(pairs) = value, pairs.contains(where: { $0.key == "audio" }) else { return self }
        return ConfigNode(.mapping(pairs.map { $0.key == "audio" ? (key: "audio", value: ConfigNode.audio($0.value, resolve: resolve)) : $0 }), origin: origin)
    }
}
