import Foundation

/// One kind of output, described once: the names that imply it, how it is encoded, what it
/// keeps (alpha, sound, the fingerprint), its default frame rate, what it refuses, and how
/// its sink is made. The job's checks, the fingerprint, the exporter, the targets and the
/// command line all read these descriptors; none of them lists the outputs again.
///
/// Adding an output is one file in `Export/Outputs/` (its descriptor, and its sink if it
/// needs a new one) and one line in `all`.
@dynamicMemberLookup
public struct OutputFormat: Hashable, Sendable, CustomStringConvertible {
    /// What an output is, held once: a job or a plan's entry keeps a reference to it, not a
    /// copy of its twenty fields (a plan holds a million entries).
    public final class Descriptor: Sendable {
        /// Its name, as `--format` and a manifest's `format:` take it.
        public let rawValue: String
        /// What it is, for the help.
        public let summary: String
        /// File-name extensions that imply it (lower case, without the dot).
        public let extensions: [String]
        /// How FFmpeg encodes it, for the outputs written by FFmpeg's video encoders.
        let encode: (@Sendable (Preset) -> VideoEncoding)?
        /// FFmpeg's encoders it writes with besides `encode`'s (GIF's, PNG's).
        let otherEncoders: [String]
        /// Carries a sound track (the soundtrack keys apply); its fingerprint is in its metadata.
        public let hasSound: Bool
        /// Keeps the alpha of a transparent background; the text names it in messages (nil when
        /// the output keeps alpha without being one a user would choose for it).
        public let keepsAlpha: Bool
        let alphaName: String?
        /// Its frame rate unless the story, the job or the command line gives one (over a preset's).
        public let defaultRate: FrameRate?
        /// May go to standard output (`-o -`).
        public let toStandardOutput: Bool
        /// Takes `--frames`: a selection of frames rather than the whole video.
        public let takesFrameSelection: Bool
        /// Takes `--chunk`: a range of the video's frames, joined later.
        public let takesChunks: Bool
        /// Writes a folder rather than a file.
        public let isFolder: Bool
        /// What needs an even width and height, for the message (nil: any size).
        let evenSize: String?
        /// A platform takes it as an upload (targets warn otherwise).
        public let isUpload: Bool
        /// Frames sampled across the video when none are chosen (a contact sheet); nil for all.
        let samples: Int?
        /// Where its fingerprint is kept when it is not inside the file.
        let sidecar: Sidecar
        /// Its own settings, as the fingerprint counts them.
        let fingerprintFields: @Sendable (Preset) -> [String: Canonical]
        /// The sinks of its passes, in order (a GIF with a palette of the whole video: two).
        let sinks: @Sendable (SinkRequest) throws -> [() throws -> FrameSink]

        init(_ name: String, _ summary: String, extensions: [String] = [], encode: (@Sendable (Preset) -> VideoEncoding)? = nil,
             otherEncoders: [String] = [], hasSound: Bool = false, keepsAlpha: Bool = false, alphaName: String? = nil, defaultRate: FrameRate? = nil,
             toStandardOutput: Bool = false, takesFrameSelection: Bool = true, takesChunks: Bool = false, isFolder: Bool = false,
             evenSize: String? = nil, isUpload: Bool = false, samples: Int? = nil, sidecar: Sidecar = .besideFile,
             fingerprintFields: @escaping @Sendable (Preset) -> [String: Canonical] = { _ in [:] },
             sinks: @escaping @Sendable (SinkRequest) throws -> [() throws -> FrameSink]) {
            rawValue = name
            self.summary = summary
            self.extensions = extensions
            self.encode = encode
            self.otherEncoders = otherEncoders
            self.hasSound = hasSound
            self.keepsAlpha = keepsAlpha
            self.alphaName = alphaName
            self.defaultRate = defaultRate
            self.toStandardOutput = toStandardOutput
            self.takesFrameSelection = takesFrameSelection
            self.takesChunks = takesChunks
            self.isFolder = isFolder
            self.evenSize = evenSize
            self.isUpload = isUpload
            self.samples = samples
            self.sidecar = sidecar
            self.fingerprintFields = fingerprintFields
            self.sinks = sinks
        }
    }

    private let descriptor: Descriptor

    public subscript<T>(dynamicMember path: KeyPath<Descriptor, T>) -> T { descriptor[keyPath: path] }

    /// Where an output's fingerprint is kept outside it, if anywhere.
    enum Sidecar: Sendable {
        /// Inside the file's own metadata, or nowhere (`null`).
        case none
        /// `.NAME.segue-fingerprint` beside the file.
        case besideFile
        /// `.segue-fingerprint` in the folder.
        case inFolder
    }

    /// What a sink is made from.
    struct SinkRequest {
        var job: Job
        /// The job's fingerprint, waited for when the sink is made.
        var fingerprint: () throws -> String?
        /// `--force` or `--resume`: an existing output may be replaced.
        var replace: Bool { job.overwrite || job.resume }
    }

    init(_ descriptor: Descriptor) {
        self.descriptor = descriptor
    }

    /// The passes of an output written in one pass, by `sink`.
    static func onePass(_ sink: @escaping @Sendable (SinkRequest) throws -> FrameSink) -> @Sendable (SinkRequest) throws -> [() throws -> FrameSink] {
        { request in [{ try sink(request) }] }
    }

    /// Every output, in the order the help lists them.
    public static let allCases: [OutputFormat] = [.mp4, .webm, .mov, .gif, .webp, .png, .framemd5, .yuv, .sheet, .null]

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
    private static let byExtension = Dictionary(allCases.flatMap { format in format.extensions.map { ($0, format) } }) { first, _ in first }

    /// The output of that name.
    public init?(rawValue: String) {
        guard let found = OutputFormat.byName[rawValue] else { return nil }
        self = found
    }

    public var description: String { self.rawValue }

    public static func == (a: OutputFormat, b: OutputFormat) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.rawValue) }

    /// Written by FFmpeg's video encoders (`VideoSink`).
    public var isVideo: Bool { self.encode != nil }
    /// Keeps the job's fingerprint in its own metadata, not beside it.
    public var keepsFingerprintInside: Bool { self.hasSound }

    /// The encoding of this output under `preset`; nil for outputs that are not videos.
    public func encoding(_ preset: Preset) -> VideoEncoding? { self.encode?(preset) }

    /// The format an output name implies: `-` is framemd5, an extension one of the outputs
    /// claims is that output, a name with no extension (or an existing folder with another
    /// extension) is a folder of PNG frames.
    public static func inferred(from output: String) -> OutputFormat? {
        if output == "-" { return .framemd5 }
        let ext = (output as NSString).pathExtension.lowercased()
        if let format = byExtension[ext] { return format }
        if ext.isEmpty { return .png }
        var isFolder: ObjCBool = false
        let folder = FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue
        return folder ? .png : nil
    }

    /// The outputs that keep alpha, for messages.
    public static var alphaOutputs: String {
        let names = allCases.compactMap(\.alphaName)
        return names.dropLast().joined(separator: ", ") + (names.count > 1 ? ", and " : "") + (names.last ?? "")
    }

    /// The extensions that imply an output, for messages: `.mp4, .webm, ...`.
    static var knownExtensions: String { allCases.flatMap(\.extensions).filter { $0 != "md5" }.map { "." + $0 }.joined(separator: ", ") }

    /// The outputs `-o -` may write, for messages.
    static var standardOutputs: String { allCases.filter { $0.toStandardOutput && $0 != .null }.map(\.rawValue).joined(separator: " and ") }
}

/// What an output refuses, said as `ExportError.job` with the descriptors' own words.
extension ExportError {
    static func unknownFormat(output: String) -> ExportError {
        .job("cannot tell the format of '\(output)' from its name (expected \(OutputFormat.knownExtensions), '-' or a folder); pass --format \(OutputFormat.allCases.map(\.rawValue).joined(separator: "|"))")
    }

    static func outputIsFolder(path: String, format: OutputFormat) -> ExportError {
        .job("\(path): is a folder; \(format.rawValue) output goes to a file (PNG frames go to a folder)")
    }

    static func standardOutput(format: OutputFormat) -> ExportError {
        .job("-o - writes to standard output, which only \(OutputFormat.standardOutputs) output can go to (this job's format is \(format.rawValue))")
    }

    static func noAlpha(format: OutputFormat) -> ExportError {
        .job("canvas.background is transparent, but \(format.rawValue) output has no alpha channel; the outputs that keep it: \(OutputFormat.alphaOutputs)")
    }

    static func missingEncoder(name: String, format: OutputFormat) -> ExportError {
        .job("this build of FFmpeg has no \(name) encoder, which \(format.rawValue) output needs; Debian's \(Doctor.ffmpegPackage("avcodec")) (or libavcodec-extra) has it, and 'segue doctor' lists every encoder and library a render may need")
    }

    static func framePastEnd(selection: FrameSelection, frameCount count: Int) -> ExportError {
        .job("--frames \(selection): frame \(selection.maximum) is past the last frame (\(count - 1)); this video has \(count) frames")
    }

    static func oddSize(width: Int, height: Int, format: OutputFormat) -> ExportError {
        .job("canvas.size \(width)x\(height): \(format.evenSize ?? format.rawValue) needs an even width and height; try \(width + width % 2)x\(height + height % 2)")
    }
}
