import Foundation

/// A job's frames ready to run: what each shows (`storyboard`), and the owner of what they
/// draw (`resources`), which makes the first screen's pictures from the moment this is made
/// and the rest as its schedule says.
struct PreparedFrames: Sendable {
    let storyboard: Storyboard
    let resources: FrameResources

    /// The frames `job` writes; its clips' feeds decode for those frames. With `yielding`,
    /// the thread that prepares screens beside the export runs at a lower priority
    /// (`Threads.lowerThisThread`): set for an MP4, whose encoder sets the pace.
    init(job: Job, yielding: Bool = false) throws {
        // Each distinct still is decoded once; stills are decoded in parallel. A clip is its
        // own source, decoded as it plays (the same file twice is two parts of it).
        let inputs = job.inputs, clips = job.clips
        let stills = inputs.indices.filter { clips[$0] == nil }
        let paths = Array(Set(stills.map { inputs[$0] })).sorted()
        // The stills whose upright size their header does not tell are decoded now (layout
        // needs every size); a JPEG that says it is decoded when a screen first needs it, only
        // the part of it that the screens show, so that encoding starts sooner and fewer
        // full-size pictures are held at once.
        let told = Dictionary(uniqueKeysWithValues: paths.compactMap { path in
            ImageHeader.uprightJPEGSize(of: path).map { (path, Size(width: Double($0.width), height: Double($0.height))) }
        })
        let now = paths.filter { told[$0] == nil }
        // Fewer stills than threads (often the first photo alone): each converts on a share of them.
        let decoded = try parallelMap(now, threads: job.threads) {
            try Image.decode(path: $0, limits: job.limits, threads: max(1, job.threads / now.count))
        }
        let byPath = Dictionary(uniqueKeysWithValues: zip(now, decoded))
        let limits = job.limits, threads = job.threads
        let sizeOf = { (path: String) -> Size in byPath[path]?.size ?? told[path]! }
        // An input named twice is one source: its first place.
        let sources = inputs.indices.map { i in clips[i] != nil ? PictureSource.clip(i) : .still(stills.first { inputs[$0] == inputs[i] }!) }
        let preloaded = Set(sources).compactMap { source -> (PictureSource, Image)? in
            guard case let .still(input) = source else { return nil }
            return byPath[inputs[input]].map { (source, $0) }
        }
        // Overlays' pictures are laid out now and drawn when first needed.
        let texts = try OverlayPictures(slides: job.overlays, screen: job.shownScreenOverlays, canvas: job.preset.canvas, limits: limits)
        let cache = PictureCache(preloaded: Dictionary(uniqueKeysWithValues: preloaded).merging(texts.decoded) { a, _ in a }) { source, part, time in
            guard case let .still(input) = source else { return SourcePixels(whole: try texts.image(source, time: time)) }
            let path = inputs[input]
            let pixels = try Image.decode(path: path, limits: limits, threads: threads, part: part)
            // Laid out by the size its header told: a file changed since cannot be drawn as planned.
            if let expected = told[path], expected != Size(width: Double(pixels.wholeWidth), height: Double(pixels.wholeHeight)) {
                throw ExportError.unreadableImage(path: path, reason: "it changed while the video was made (\(Int(expected.width))x\(Int(expected.height)) when read first, \(pixels.wholeWidth)x\(pixels.wholeHeight) now)")
            }
            return pixels
        }
        let sizes = inputs.indices.map { clips[$0]?.info.size ?? sizeOf(inputs[$0]) }
        let prepared = job.openedTransitions()
        storyboard = Storyboard(sizes: sizes, sources: sources, preset: prepared.preset, plan: prepared.plan, timeline: job.timeline,
                                clips: clips, texts: texts, fills: job.fills)
        let schedule = FrameSchedule(storyboard, frames: job.frameIndices(count: job.timeline.frameCount))
        resources = FrameResources(pictures: cache, schedule: schedule, clips: clips, sizes: { source in
            if case let .still(input) = source { sizes[input] } else { nil }
        }, limits: limits, threads: threads, yielding: yielding)
    }

    /// Makes the still pictures (not a clip's) that frame `index` draws.
    func prepareStills(of index: Int, threads: Int) throws {
        let keys = PictureCache.keys(in: storyboard.scene(at: index), scale: storyboard.canvas.scale)
        try resources.pictures.prepare(keys.filter { $0.source.clipSlide == nil }, threads: threads)
    }
}
