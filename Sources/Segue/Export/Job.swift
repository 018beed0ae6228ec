import Foundation

/// What an export writes.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// An H.264 (or HEVC) video in an MP4 file.
    case mp4
    /// One `frame-NNNNN.png` per frame in a folder.
    case png
    /// FFmpeg's framemd5 checksums of the RGBA frames, to a file or `-` (standard output).
    case framemd5
    /// One PNG contact sheet of frames sampled across the video.
    case sheet
    /// Nothing: frames are composed and dropped, to measure rendering alone.
    case null

    /// The format an output name implies: `-` or `.framemd5`/`.md5` is framemd5, `.mp4` is
    /// MP4, `.png` is a contact sheet, a name with no extension (or an existing folder with
    /// another extension) is a folder of PNG frames.
    public static func inferred(from output: String) -> OutputFormat? {
        if output == "-" { return .framemd5 }
        switch (output as NSString).pathExtension.lowercased() {
        case "mp4": return .mp4
        case "framemd5", "md5": return .framemd5
        case "png": return .sheet
        case "": return .png
        default:
            var isFolder: ObjCBool = false
            let folder = FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue
            return folder ? .png : nil
        }
    }
}

/// A set of frame indices, written as `0,10,20-25`.
public struct FrameSelection: Equatable, Sendable, CustomStringConvertible {
    public var ranges: [ClosedRange<Int>]

    public init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// Parses a comma-separated list of indices and inclusive ranges; nil when malformed.
    public init?(parsing text: String) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), low >= 0,
                  let high = bounds.count == 2 ? Int(bounds[1]) : low, high >= low else { return nil }
            ranges.append(low...high)
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
    }

    /// The selected indices below `count`, increasing, each once.
    public func indices(below count: Int) -> [Int] {
        Array(Set(ranges.flatMap { $0.clamped(to: 0...max(0, count - 1)) }.filter { $0 < count })).sorted()
    }

    /// The largest index asked for.
    public var maximum: Int { ranges.map(\.upperBound).max() ?? 0 }

    public var description: String {
        ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }
}

/// One export: a preset, the inputs in order, and where and how to write.
public struct Job: Sendable {
    public var preset: Preset
    public var inputs: [String]
    public var output: String
    public var format: OutputFormat
    /// Only these frames (PNG and framemd5 only); nil for all.
    public var frames: FrameSelection?
    /// Compositor threads. Any number gives the same pixels.
    public var threads: Int
    public var limits: Limits
    /// Whether an existing output may be replaced.
    public var overwrite: Bool

    /// Frames a contact sheet samples when no frames are chosen.
    public static let sheetFrames = 12

    public init(preset: Preset, inputs: [String], output: String, format: OutputFormat? = nil,
                frames: FrameSelection? = nil, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                limits: Limits = Limits(), overwrite: Bool = false) throws {
        guard let resolved = format ?? OutputFormat.inferred(from: output) else {
            throw ExportError.invalidJob("cannot tell the format of '\(output)' from its name (expected .mp4, .framemd5, '-' or a folder); pass --format mp4|png|framemd5")
        }
        self.preset = preset
        self.inputs = inputs
        self.output = output
        self.format = resolved
        self.frames = frames
        self.threads = max(1, threads)
        self.limits = limits
        self.overwrite = overwrite
    }

    /// The frames written, of `count`: those chosen, or all (a sheet samples evenly).
    public func frameIndices(count: Int) -> [Int] {
        if let frames { return frames.indices(below: count) }
        guard format == .sheet else { return Array(0..<count) }
        let n = min(count, Job.sheetFrames)
        return n <= 1 ? [0] : (0..<n).map { Int((Double($0) * Double(count - 1) / Double(n - 1)).rounded()) }
    }

    /// The video's timeline (it depends on the inputs only through their number).
    public var timeline: Timeline { preset.timeline(screens: preset.screenCount(inputs: inputs.count)) }

    /// Checks what can be checked before any work: inputs named, frames in range, options
    /// that go together.
    public func validate() throws {
        guard !inputs.isEmpty else { throw ExportError.invalidJob("no input images given (expected one or more image files)") }
        for input in inputs where !FileManager.default.fileExists(atPath: input) {
            throw ExportError.missingInput(input)
        }
        var isFolder: ObjCBool = false
        if output != "-", format != .png, format != .null, FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), isFolder.boolValue {
            throw ExportError.invalidJob("\(output): is a folder; \(format.rawValue) output goes to a file (PNG frames go to a folder)")
        }
        if output != "-", format != .null, !overwrite {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) {
                let empty = isFolder.boolValue && ((try? FileManager.default.contentsOfDirectory(atPath: output))?.isEmpty ?? false)
                if !empty { throw ExportError.outputExists(output) }
            }
        }
        let count = frames.map { $0.indices(below: timeline.frameCount).count } ?? timeline.frameCount
        let work = count.multipliedReportingOverflow(by: preset.canvas.width * preset.canvas.height)
        if work.overflow || work.partialValue > limits.maxPixelFrames {
            throw ExportError.invalidJob("this job would compose \(count) frames of \(preset.canvas.width)x\(preset.canvas.height), over the budget of \(limits.maxPixelFrames) pixel-frames (about an hour of 1080x1920 at 30 fps); raise it with --max-pixel-frames")
        }
        if let frames {
            guard format != .mp4 else {
                throw ExportError.invalidJob("--frames selects frames for png, framemd5 and sheet output; an MP4 holds every frame")
            }
            let count = timeline.frameCount
            guard frames.maximum < count else {
                throw ExportError.invalidJob("--frames \(frames): frame \(frames.maximum) is past the last frame (\(count - 1)); this video has \(count) frames")
            }
        }
        if format == .mp4, preset.canvas.width % 2 != 0 || preset.canvas.height % 2 != 0 {
            throw ExportError.invalidJob("canvas.size \(preset.canvas.width)x\(preset.canvas.height): MP4 video (yuv420p) needs an even width and height; try \(preset.canvas.width + preset.canvas.width % 2)x\(preset.canvas.height + preset.canvas.height % 2)")
        }
    }
}
