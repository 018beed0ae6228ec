import Foundation

/// Where a video is going to be posted: a target sets the canvas, the rate, the encoder's
/// rate cap, the loudness and the safe area for text, and checks what the platform refuses
/// or cuts. Its settings lie over the preset and under the story's and the command line's
/// own keys. The numbers and their public sources are in docs/presets.md ("Targets").
public enum Target: String, CaseIterable, Sendable {
    case instagramStory = "instagram-story"
    case instagramReel = "instagram-reel"
    case tiktok
    case youtubeShort = "youtube-short"
    case youtube

    /// What a platform takes.
    struct Spec {
        var size: (width: Int, height: Int)
        /// The longest video it takes (an error past it), and where it starts cutting or
        /// treating the video otherwise (a warning past it).
        var longest: Double
        var cutsAfter: Double?
        var cut: String = ""
        /// The shortest it takes (an error under it), and the shortest it recommends (a warning).
        var shortest: Double
        var recommendsAtLeast: Double?
        /// Top, right, bottom and left margins its buttons and captions cover, in 0...1.
        var safeArea: [Double]
        /// Upright (taller than wide) or landscape.
        var upright: Bool
        /// Landscape for an upright target (or upright for a landscape one) is refused, not warned.
        var refusesOtherShape = false
    }

    var spec: Spec {
        switch self {
        case .instagramStory:
            return Spec(size: (1080, 1920), longest: 3600, cutsAfter: 60, cut: "Instagram shows a story in parts of 60 s",
                        shortest: 1, safeArea: [0.14, 0, 0.20, 0], upright: true)
        case .instagramReel:
            return Spec(size: (1080, 1920), longest: 900, cutsAfter: 180, cut: "a reel made in the app lasts at most 3 min; a longer upload may not be shown among reels",
                        shortest: 1, recommendsAtLeast: 3, safeArea: [0.14, 0.06, 0.35, 0.06], upright: true)
        case .tiktok:
            return Spec(size: (1080, 1920), longest: 600, cutsAfter: 60, cut: "a TikTok in-feed ad lasts at most 60 s",
                        shortest: 1, recommendsAtLeast: 5, safeArea: [150.0 / 1920, 150.0 / 1080, 440.0 / 1920, 0], upright: true)
        case .youtubeShort:
            return Spec(size: (1080, 1920), longest: 180, shortest: 1, safeArea: [0.20, 0.10, 0.25, 0.10], upright: true, refusesOtherShape: true)
        case .youtube:
            return Spec(size: (1920, 1080), longest: 12 * 3600, cutsAfter: 15 * 60, cut: "YouTube takes videos over 15 min only from verified accounts",
                        shortest: 1, safeArea: [0, 0, 0, 0], upright: false)
        }
    }

    /// The preset keys the target sets, for a video at `fps` (the rate the other keys give,
    /// if they give one).
    func settings(fps: FrameRate?) -> PresetPatch {
        let s = spec, origin = ConfigOrigin.option("target \(rawValue)")
        // YouTube's recommended rates for SDR uploads: 8 Mbit/s at 1080p up to 30 fps, 12 above.
        let fast = (fps?.value ?? 30) > 31
        var patch = PresetPatch()
        patch.set("canvas.size", .integers([s.size.width, s.size.height]), origin: origin)
        // The margins to four decimals, as the table in docs/presets.md gives them.
        patch.set("canvas.safeArea", .numbers(s.safeArea.map { ($0 * 10_000).rounded() / 10_000 }), origin: origin)
        patch.set("encode.codec", .text("h264"), origin: origin)
        patch.set("encode.maxRate", .integer(fast ? 12000 : 8000), origin: origin)
        patch.set("audio.loudness", .integer(-14), origin: origin)
        patch.set("audio.truePeak", .integer(-1), origin: origin)
        if fps == nil { patch.set("fps", .integer(30), origin: origin) }
        if self == .youtube {
            // YouTube's upload settings: closed GOPs of half the frame rate, two B-frames.
            patch.set("encode.gop", .integer((fps ?? 30).perSecond / 2), origin: origin)
            patch.set("encode.bframes", .integer(2), origin: origin)
        }
        return patch
    }

    /// Where each target's numbers come from.
    var sources: String {
        switch self {
        case .instagramStory:
            return "Meta's Stories ad specifications (9:16, 1080x1920, H.264 with AAC, no edit list; 14 % top and 20 % bottom kept free): https://www.facebook.com/business/ads-guide/video/instagram-story"
        case .instagramReel:
            return "Meta's Reels ad specifications and safe zone (14 % top, 35 % bottom, 6 % sides): https://www.facebook.com/business/ads-guide/video/instagram-reels; reels up to 3 min in the app, 15 min uploaded: https://help.instagram.com/"
        case .tiktok:
            return "TikTok's video ads specifications (9:16, at least 720x1280, 5 to 60 s, at least 516 kbit/s, at most 500 MB): https://ads.tiktok.com/help/article?aid=6669199281502552069; uploads up to 10 min; the UI's margins (150 px top and right, 440 px bottom at 1080x1920) as TikTok's safe-zone overlays show them"
        case .youtubeShort:
            return "YouTube's Shorts up to 3 min, square or vertical: https://support.google.com/youtube/answer/15424877; YouTube publishes no safe zone: the margins (20 % top, 25 % bottom, 10 % sides) are the channel name, title and button rail's"
        case .youtube:
            return "YouTube's recommended upload encoding settings (H.264 High, closed GOP of half the frame rate, 2 B-frames, AAC-LC 48 kHz, 8 Mbit/s at 1080p up to 30 fps and 12 above, no edit list, index at the front): https://support.google.com/youtube/answer/1722171; over 15 min needs a verified account: https://support.google.com/youtube/answer/71673"
        }
    }

    /// The targets' table and sources, for docs/presets.md.
    static var referenceMarkdown: String {
        func percent(_ v: Double) -> String { String(format: "%g", (v * 1000).rounded() / 10) }
        var text = """
            ## Targets

            `target:` (`--target`) lays these keys under the story's and the command line's own:
            `canvas.size`, `fps` 30 (unless given), `encode.codec` h264, `encode.maxRate` (8000 kbit/s,
            12000 above 30 fps), `audio.loudness` -14 with `audio.truePeak` -1 (no platform publishes
            a target; -14 LUFS is where YouTube's and the apps' playback normalisation is measured to
            turn louder videos down), `canvas.safeArea`; for youtube also `encode.gop` (half the
            frame rate) and `encode.bframes` 2. A video longer or shorter than the platform takes,
            or a landscape Short, is refused (exit 2); one the platform cuts, shows with bars or
            takes in another container is rendered with a warning.

            Overlays placed by default (captions, `--text`, a logo without `at`) keep out of the
            safe area's margins by themselves; one given `at` stays where it is put, with a warning
            when its anchor lies in them.

            | target | size | refused under | refused past | warned past | warned under | safe area top, right, bottom, left (%) |
            |---|---|---|---|---|---|---|

            """
        for target in allCases {
            let s = target.spec
            text += "| `\(target.rawValue)` | \(s.size.width)x\(s.size.height) | \(duration(s.shortest)) | \(duration(s.longest)) | \(s.cutsAfter.map(duration) ?? "") | "
                + "\(s.recommendsAtLeast.map(duration) ?? "") | \(s.safeArea.map(percent).joined(separator: ", ")) |\n"
        }
        text += "\nSources, as read in 2026:\n\n"
        for target in allCases { text += "- `\(target.rawValue)`: \(target.sources)\n" }
        return text
    }

    static func duration(_ seconds: Double) -> String {
        seconds >= 3600 ? String(format: "%g h", seconds / 3600) : seconds >= 60 ? String(format: "%g min", seconds / 60) : String(format: "%g s", seconds)
    }

    /// The target a configuration tree names, if any.
    static func named(in node: ConfigNode) throws -> Target? {
        guard let found = node["target"] else { return nil }
        let text = try ConfigReader.string(found, key: "target")
        if text == "none" { return nil }
        guard let target = Target(rawValue: text) else {
            let hint = suggestion(for: text, among: allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
            throw PresetError.invalid(key: "target", origin: found.origin, value: "'\(text)'",
                                      expected: "one of: none, " + allCases.map(\.rawValue).joined(separator: ", ") + hint)
        }
        return target
    }
}
