import Foundation

/// Limits that keep a job bounded in memory and time whatever its inputs: the images it
/// decodes are checked before their pixels are allocated, the work before it starts.
public struct Limits: Equatable, Sendable {
    /// Pixels per image (width x height), about 33 megapixels, as trusted image tools allow.
    public var maxPixels: Int = 16384 * 2048
    /// Pixels per side of an image.
    public var maxSide: Int = 16384
    /// Frames x pixels a job may compose: 2 x 10^11 is about an hour of 1080x1920 at 30 fps.
    public var maxPixelFrames: Int = 200_000_000_000

    public init(maxPixels: Int = 16384 * 2048, maxSide: Int = 16384, maxPixelFrames: Int = 200_000_000_000) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.maxPixelFrames = maxPixelFrames
    }

    func check(width: Int, height: Int, path: String) throws {
        guard width <= maxSide, height <= maxSide, width * height <= maxPixels else {
            throw ExportError.imageTooLarge(path: path, width: width, height: height, limits: self)
        }
    }
}

/// A failure while exporting: an input that cannot be read, an output that cannot be
/// written, an encoder that refuses, or a job that cannot be done as asked. Each message
/// names the file or the value and what is expected.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    case unreadableImage(path: String, reason: String)
    case imageTooLarge(path: String, width: Int, height: Int, limits: Limits)
    case encoder(path: String, reason: String)
    case output(path: String, reason: String)
    case noInputs
    case missingInput(String)
    case unsupportedImage(path: String, reason: String)
    /// A FIFO, a device or a socket (or a loop of links) where a file is read or written.
    case notAFile(path: String, what: String, role: String)
    case outputExists(String)
    /// Another writer put a file at the output while this export ran.
    case outputTaken(String)
    case outputIsInput(String)
    case workBudget(frames: Int, width: Int, height: Int, limit: Int)
    case framesInMP4
    /// What the job's target platform refuses (too long, too short, the wrong shape).
    case target(String)
    /// A job that cannot be done as asked of its output (its format, size, frames, alpha, an
    /// encoder it needs): the message says what and how to fix it (see `OutputFormat`).
    case job(String)
    case cancelled
    /// A chunk that cannot be rendered or joined (missing, of another job, encoded otherwise).
    case chunk(String)
    /// The soundtrack cannot be used: no such file, no audio in it, nothing decodable, or
    /// `start` past its end.
    case audio(path: String, reason: String)
    /// A file whose beats cannot be found: no sound FFmpeg decodes, or no libaubio.
    case beats(path: String, reason: String)
    /// A clip Segue does not take: no video stream, no decoder for it, HDR.
    case unsupportedClip(path: String, reason: String)
    /// A clip that cannot be read whole: the message says at which time it broke.
    case damagedClip(path: String, reason: String)
    /// A clip over the decode limits: its picture size, or the decoding work it asks for.
    case clipTooLarge(path: String, reason: String)
    /// A clip in a video whose transition builds screens of its own from stills.
    case clipInWholeStoryTransition(path: String, transition: String, joining: [String])
    /// A text overlay that Pango or Cairo could not draw, or a font file fontconfig cannot add.
    case text(what: String, reason: String)
    /// A GLSL transition that cannot run: its file does not compile (the compiler's message,
    /// lines as in the file), or Mesa's EGL and software renderer are missing.
    case glsl(path: String, reason: String)
    /// A frame that was drawn but is not a picture (a GLSL transition's NaN): said with its time.
    case refusedFrame(frame: Int, seconds: Double, reason: String)

    /// True for errors in what was asked (exit code 2), false for failures while doing it (1).
    public var isUsageError: Bool {
        switch self {
        case .unreadableImage, .encoder, .output, .cancelled, .damagedClip, .text, .refusedFrame: return false
        default: return true
        }
    }

    public var description: String {
        switch self {
        case let .unreadableImage(path, reason): return "\(path): cannot read the image: \(reason)"
        case let .audio(path, reason): return "\(path): cannot use it as the soundtrack: \(reason)"
        case let .beats(path, reason): return "\(path): cannot find its beats: \(reason)"
        case let .unsupportedClip(path, reason): return "\(path): not a video clip Segue can play: \(reason)"
        case let .damagedClip(path, reason): return "\(path): cannot read the clip: \(reason)"
        case let .clipTooLarge(path, reason): return "\(path): the clip is over the decode limits: \(reason)"
        case let .clipInWholeStoryTransition(path, transition, joining):
            return "\(path): is a video clip, and '\(transition)' builds screens of its own from still pictures; clips play with transitions that join two slides (\(joining.joined(separator: ", ")))"
        case let .imageTooLarge(path, width, height, limits):
            if width > limits.maxSide || height > limits.maxSide {
                return "\(path): the image is \(width)x\(height), over the limit of \(limits.maxSide) pixels a side"
            }
            return "\(path): the image is \(width)x\(height), over the limit of \(limits.maxPixels) pixels in all (raise it with --max-image-pixels)"
        case let .encoder(path, reason): return "\(path): cannot encode the video: \(reason)"
        case let .output(path, reason): return "\(path): cannot write: \(reason)"
        case .noInputs: return "no input images given (expected one or more image files)"
        case let .missingInput(path): return "\(path): no such input file"
        case let .notAFile(path, what, role): return "\(path): is \(what), not a file; Segue \(role)"
        case let .unsupportedImage(path, reason): return "\(path): not an image Segue can read (JPEG, PNG, WebP, ...): \(reason)"
        case let .outputExists(path): return "\(path): already exists; pass --force to replace it (or --resume to keep it when it is up to date)"
        case let .outputTaken(path):
            return "\(path): another writer created it while this export ran; it was left as it is (pass --force to replace it)"
        case let .outputIsInput(path): return "\(path): is one of the inputs; an export never writes over its own input, even with --force"
        case let .workBudget(frames, width, height, limit):
            return "this job would compose \(frames) frames of \(width)x\(height), over the budget of \(limit) pixel-frames (about an hour of 1080x1920 at 30 fps); raise it with --max-pixel-frames"
        case .framesInMP4: return "--frames selects frames for png, framemd5, yuv and sheet output; a video (MP4, WebM, MOV, WebP) or a GIF holds every frame"
        case let .target(message): return message
        case let .chunk(message): return message
        case let .job(message): return message
        case let .text(what, reason): return "\(what): cannot draw it: \(reason)"
        case let .glsl(path, reason): return "\(path): cannot run the GLSL transition: \(reason)"
        case let .refusedFrame(frame, seconds, reason):
            return String(format: "frame %d (%.3f s): refused: %@; nothing was written", frame, seconds, reason)
        case .cancelled: return "cancelled; nothing was written"
        }
    }
}

/// `value` as a message quotes it: whole when short, else its start and how long it is, so an
/// error names a long text (a 1 MB template field, a whole cue) without repeating it.
public func shortened(_ value: String, keeping limit: Int = 80) -> String {
    guard value.utf8.count > limit else { return value }
    let start = value.prefix(limit)
    guard start.endIndex < value.endIndex else { return value }
    return "\(start)… (\(value.unicodeScalars.count) characters)"
}
