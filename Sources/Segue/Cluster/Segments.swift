import Foundation

/// A video cut at its screens, each part rendered on its own and joined by copy, as chunks
/// are: what `segue preview` renders again after an edit is only the parts whose pixels it
/// changes.
///
/// Segment k holds screen k's hold and the transition out of it (the last screen: its hold
/// alone). Its key is the SHA-256 of what decides those frames' pixels, read off the job's
/// fingerprint document (`Fingerprint`): the settings every frame shares, the two screens it
/// shows (input by content, motion, clip, fill, text), cut k, and the screens' times and the
/// screen overlays it meets, counted from the segment's first frame. So a longer hold on one
/// slide changes the segment of that slide and the one before it (whose transition leads into
/// it), and the segments after it, moved later, keep their keys. A video whose transition runs
/// the whole video (no story plan) keys every segment by the whole document.
public enum Segments {
    /// One part of the video.
    public struct Segment: Equatable, Sendable {
        /// Its frames in the whole video (may be empty: a screen shorter than a frame).
        public var frames: Range<Int>
        /// `sha256:` and 64 hex digits; equal keys draw equal frames.
        public var key: String
    }

    /// The frames of each segment of `timeline`, in order, one per screen.
    public static func ranges(of timeline: Timeline) -> [Range<Int>] {
        let count = timeline.frameCount
        var bounds = [0], current = 0
        for frame in 0..<count {
            let screen: Int
            switch timeline.moment(at: frame) {
            case let .hold(index): screen = index
            case let .transition(step, _, _): screen = step
            }
            while current < screen {
                bounds.append(frame)
                current += 1
            }
        }
        while bounds.count < timeline.screenCount { bounds.append(count) }
        bounds.append(count)
        return zip(bounds, bounds.dropFirst()).map { $0..<$1 }
    }

    /// The segments of `job`, with their keys. Reads every input once (`digests` keeps their
    /// digests for the caller's next call, as a batch does).
    public static func of(_ job: Job, digests: Fingerprint.Digests? = nil) throws -> [Segment] {
        try plan(of: job, digests: digests).segments
    }

    /// The segments of `job` and the key of its soundtrack (nil without sound), from one
    /// reading of its fingerprint document.
    public static func plan(of job: Job, digests: Fingerprint.Digests? = nil) throws -> (segments: [Segment], sound: String?) {
        let fields = try Fingerprint.fields(of: job, digests: digests)
        return (segments(of: job, fields: fields), soundKey(of: job, fields: fields))
    }

    static func segments(of job: Job, fields document: [String: Canonical]) -> [Segment] {
        let timeline = job.timeline
        let ranges = ranges(of: timeline)
        var fields = document
        fields["frames"] = nil
        guard job.plan != nil else {
            let whole = Canonical.object(fields)
            return ranges.map { Segment(frames: $0, key: digest(.object(["whole": whole, "frames": .string(Shard.describe($0))]))) }
        }
        // What each screen brings, from the document's per-slide members.
        func item(_ key: String, _ index: Int) -> Canonical {
            guard case let .array(items)? = fields[key], index < items.count else { return .string("none") }
            return items[index]
        }
        func member(_ object: String, _ key: String) -> Canonical? {
            guard case let .object(members)? = fields[object] else { return nil }
            return members[key]
        }
        func element(_ value: Canonical?, _ index: Int) -> Canonical {
            guard case let .array(items)? = value, index < items.count else { return .string("none") }
            return items[index]
        }
        // Text on a slide, none when no slide has any (the document then has no member).
        func slideText(_ index: Int) -> Canonical { member("overlays", "slides") == nil ? .array([]) : element(member("overlays", "slides"), index) }
        // How the slide fills its page (the document names fills only when one differs).
        func fill(_ index: Int) -> Canonical {
            index < job.fills.count ? .string("\(job.fills[index].fit.rawValue) \(job.fills[index].background)") : .string("none")
        }
        func screen(_ index: Int, from start: Double) -> Canonical {
            let shown = timeline.timeOnScreen(index)
            var clip = Canonical.string("none")
            if case let .object(clips)? = fields["clips"], let found = clips[String(index + 1)] { clip = found }
            return .object(["input": item("inputs", index), "motion": element(member("plan", "motions"), index), "clip": clip,
                            "fill": fill(index), "overlays": slideText(index),
                            "shown": .array([.number(shown.lowerBound - start), .number(shown.upperBound - start)])])
        }
        var common = fields
        for key in ["inputs", "plan", "clips", "fills", "overlays", "audio"] { common[key] = nil }
        let shared = Canonical.object(common)
        let fps = job.preset.fps
        let end = fps.time(ofFrame: timeline.frameCount)
        let starts = ranges.map { fps.time(ofFrame: $0.lowerBound) }, stops = ranges.map { fps.time(ofFrame: $0.upperBound) }
        // Screen overlays met by each segment, with their times from the segment's start (a
        // sticker's animation runs on the video's clock, so with one the start counts as it
        // is). Each overlay finds its first segment by bisection: captions of an hour, word by
        // word, cost their number, not their number times the slides'.
        var met = [[Canonical]](repeating: [], count: ranges.count)
        let written = member("overlays", "screen")
        for (n, overlay) in job.screenOverlays.enumerated() {
            let from = overlay.span.start, to = overlay.span.endTime ?? end
            guard case let .object(entry) = element(written, n) else { continue }
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if stops[middle] <= from { low = middle + 1 } else { high = middle }
            }
            var index = low
            while index < ranges.count, starts[index] < to {
                var placed = entry
                placed["start"] = .number(from - starts[index])
                placed["end"] = .number(to - starts[index])
                if OverlayKind.of(overlay).changesWithTime(overlay) { placed["clock"] = .number(starts[index]) }
                met[index].append(.object(placed))
                index += 1
            }
        }
        return ranges.enumerated().map { index, frames in
            var members: [String: Canonical] = ["shared": shared, "frames": .number(Double(frames.count)), "screens": .array(
                (index...min(index + 1, timeline.screenCount - 1)).map { screen($0, from: starts[index]) }), "overlays": .array(met[index])]
            if index < timeline.screenCount - 1 { members["cut"] = element(member("plan", "cuts"), index) }
            return Segment(frames: frames, key: digest(.object(members)))
        }
    }

    /// The key of `job`'s soundtrack: its music, voices and clips' sound, and the timing they
    /// are placed by. Nil for a video without sound.
    static func soundKey(of job: Job, fields: [String: Canonical]) -> String? {
        guard Chunks.hasSound(job) else { return nil }
        var members: [String: Canonical] = ["frames": .number(Double(job.timeline.frameCount)), "fps": .string(job.preset.fps.description)]
        for key in ["audio", "clips", "plan", "segue"] { members[key] = fields[key] ?? .string("none") }
        return digest(.object(members))
    }

    /// Renders `frames` of `job` into `path`: an MP4 of its own, no sound, starting with a
    /// keyframe, written atomically (an existing file is replaced), without B-frames as every
    /// segment is (the video sink's rule).
    public static func render(_ job: Job, frames: Range<Int>, to path: String, cancellation: Cancellation? = nil) throws {
        let part = job.delivering {
            $0.segment = frames
            $0.output = path
            $0.overwrite = true
            $0.resume = false
        }
        try Exporter.run(part, fingerprint: "segment", cancellation: cancellation)
    }

    /// Renders `job`'s soundtrack alone into `folder`/sound.m4a, as a sound chunk; its path,
    /// or nil when the video has no sound.
    public static func renderSound(_ job: Job, in folder: String) throws -> String? {
        let sound = job.delivering {
            $0.output = (folder as NSString).appendingPathComponent("proxy")
            $0.overwrite = true
            $0.resume = false
        }
        let result = try Chunks.renderSound(sound, fingerprint: "sound")
        return result.written ? result.path : nil
    }

    /// Joins rendered segments (each file with its first frame in the video; empty ones left
    /// out) and a sound chunk into `path`, copying their packets.
    public static func join(_ job: Job, segments: [(path: String, start: Int)], sound: String?, to path: String) throws {
        let joined = job.delivering {
            $0.output = path
            $0.overwrite = true
        }
        try Chunks.write(joined, chunks: segments, sound: sound, frames: job.timeline.frameCount, fingerprint: "preview")
    }

    static func digest(_ value: Canonical) -> String { "sha256:" + Fingerprint.hex(sha256(Array(value.text.utf8))) }
}
