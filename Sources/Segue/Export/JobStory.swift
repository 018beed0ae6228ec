import Foundation

extension Job {
    /// The job a story makes under `preset` (the story's own preset with its keys, laid as
    /// the caller chose): its slides, the text and captions fixed to the screen, its voices.
    public init(story: Story, preset: Preset, output: String, format: OutputFormat? = nil, frames: FrameSelection? = nil,
                limits: Limits = Limits(), overwrite: Bool = false) throws {
        try self.init(JobRequest(.story(story), preset: preset, output: output, format: format, frames: frames, limits: limits, overwrite: overwrite))
    }
}

extension Job {
    /// The clips' own sound, where each plays in the video: from the start of its incoming
    /// transition for as long as its slide is on screen (or its part lasts), faded in over
    /// that transition and out over the outgoing one, so two clips' sounds crossfade at equal
    /// power through the cut.
    public var clipSounds: [Sound] {
        guard let plan else { return [] }
        let timeline = self.timeline
        return clips.keys.sorted().compactMap { index in
            let clip = clips[index]!
            guard clip.settings.audio else { return nil }
            let onScreen = timeline.timeOnScreen(index)
            let length = min(clip.length ?? .infinity, onScreen.upperBound - onScreen.lowerBound)
            let incoming = index > 0 ? plan.cuts[index - 1].duration : 0
            let outgoing = index < plan.cuts.count ? plan.cuts[index].duration : 0
            let playsToTheEnd = length >= onScreen.upperBound - onScreen.lowerBound
            return Sound(path: clip.path, part: Span(start: clip.settings.part.start, end: .after(length)), at: onScreen.lowerBound,
                         volume: clip.settings.volume, fadeIn: max(incoming, Sound.edge),
                         fadeOut: playsToTheEnd ? max(outgoing, Sound.edge) : Sound.edge)
        }
    }

    /// The voice tracks as placed: each for its duration, or to its file's end, never past
    /// the video's end.
    public var voiceSounds: [Sound] {
        let end = preset.fps.time(ofFrame: timeline.frameCount)
        return voices.compactMap { voice in
            let length = min(voice.part.length ?? voice.available ?? .infinity, voice.available ?? .infinity, end - voice.at)
            guard length > 0 else { return nil }
            let cut = voice.part.start > 0
            return Sound(path: voice.file, part: Span(start: voice.part.start, end: .after(length)), at: voice.at, volume: voice.volume,
                         fadeIn: cut ? Sound.edge : 0, fadeOut: length < (voice.available ?? .infinity) ? Sound.edge : 0)
        }
    }

    /// What the MP4's soundtrack mixes.
    public var soundtrack: Soundtrack { Soundtrack(music: preset.audio, sounds: clipSounds + voiceSounds) }
}
