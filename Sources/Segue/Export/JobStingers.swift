import CSegueAV
import Foundation

/// A story's stingers (`Stinger`), resolved with the job: each stinger cut's clip probed, the
/// cut made to last the clip's length at a linear pace (the clip plays in real time), and,
/// once the timeline is known, the clip's overlay over the screen and its sound.
extension Job {
    /// A stinger found in a plan: the cut it plays over and what its clip is.
    struct FoundStinger {
        var step: Int
        var path: String
        var length: Double
        var frames: Int
        var audio: Bool
        var key: String
        var origin: ConfigOrigin
    }

    /// The stingers of `plan`, each cut set to its clip's length; what is wrong with a stinger
    /// names its slide's key and line: a clip that is no animation, one without alpha and
    /// without a track matte (it would hide both pages), a cut past its end, sound asked of a
    /// clip without any.
    static func stingers(in plan: inout StoryPlan, slides: [StorySlide], limits: Limits) throws -> [FoundStinger] {
        var found: [FoundStinger] = []
        // Each clip probed, and looked at for alpha, once however many cuts play it.
        var probed: [String: (info: SegueStickerInfo, opaque: Bool?)] = [:]
        for (step, cut) in plan.cuts.enumerated() {
            guard var settings = cut.settings, let stinger = settings.transition as? Stinger else { continue }
            let slide = slides[step], key = slide.key + ".transition", origin = slide.transition?.origin ?? slide.origin
            let path = stinger.values[Stinger.clip]
            func refuse(_ what: String, _ value: String, _ expected: String) -> PresetError {
                .invalid(key: "\(key).\(what)", origin: origin, value: value, expected: expected)
            }
            guard !path.isEmpty else { throw refuse("clip", "(none)", "the stinger's clip: a clip with alpha (clip: FILE)") }
            let info: SegueStickerInfo
            if let known = probed[path] { info = known.info } else {
                do { info = try Sticker.probe(path, limits: limits) } catch {
                    throw refuse("clip", "'\(path)'", "a clip with alpha (ProRes 4444 .mov, VP9 .webm with alpha, animated WebP, GIF or APNG): \(error)")
                }
                probed[path] = (info, nil)
            }
            guard info.frames > 1, info.duration > 0 else {
                throw refuse("clip", "'\(path)'", "a clip that plays: it has one picture")
            }
            let hasMatte = !stinger.values[Stinger.matte].isEmpty
            if !hasMatte {
                // Its first, middle and last pictures: a stinger opaque in all three would hide both pages.
                let opaque = try probed[path]?.opaque ?? {
                    let feed = try StickerFeed(path: path, limits: limits)
                    return try [0, info.duration / 2, info.duration * 0.999].allSatisfy { try feed.frame(startingAt: $0).isOpaque }
                }()
                probed[path] = (info, opaque)
                if opaque {
                    throw refuse("clip", "'\(path)'", "a clip with alpha: its pictures are opaque, so it would hide both pages (or give a track matte, matte: FILE)")
                }
                let at = stinger.values[Stinger.cut]
                if at >= info.duration {
                    throw refuse("cut", String(format: "%g", at), String(format: "a time before the clip's end ('%@' lasts %.2f s)", (path as NSString).lastPathComponent, info.duration))
                }
            }
            let audio = stinger.values[Stinger.audio]
            if audio, (try? ClipInfo.probe(path, limits: limits))?.hasAudio != true {
                throw refuse("audio", "true", "a clip with sound; '\((path as NSString).lastPathComponent)' has no audio stream")
            }
            settings.transition = stinger.lasting(info.duration)
            settings.duration = info.duration
            settings.curve = .linear
            plan.cuts[step] = .transition(settings)
            found.append(FoundStinger(step: step, path: path, length: info.duration, frames: Int(info.frames), audio: audio, key: key, origin: origin))
        }
        return found
    }

    /// The stingers' clips over the screen (the canvas's width, centred, from the start of
    /// their cut for their length) and their sounds, placed on `timeline`.
    static func placed(_ stingers: [FoundStinger], on timeline: Timeline) -> (overlays: [Overlay], voices: [Voice]) {
        var overlays: [Overlay] = [], voices: [Voice] = []
        for stinger in stingers {
            let start = timeline.transitionStart(stinger.step)
            var sticker = Sticker(path: stinger.path, width: 1)
            sticker.frames = stinger.frames
            sticker.loop = false
            var overlay = Overlay(sticker: sticker)
            overlay.span = Span(start: start, end: .at(start + stinger.length))
            overlay.placed = true
            overlays.append(overlay)
            if stinger.audio {
                var voice = Voice(file: stinger.path, at: start, duration: stinger.length, available: stinger.length)
                voice.key = stinger.key + ".audio"
                voice.origin = stinger.origin
                voices.append(voice)
            }
        }
        return (overlays, voices)
    }
}
