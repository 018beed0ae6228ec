import CSegueAV
import Dispatch
import Foundation

/// What a video clip's header says, read without decoding its pictures.
public struct ClipInfo: Sendable, Equatable {
    /// The picture's size as stored, before its display matrix turns it.
    public var storedWidth: Int
    public var storedHeight: Int
    /// How the display matrix turns it upright (phones store portrait video turned 90°).
    public var orientation: Orientation
    /// Seconds, nil when the file does not say.
    public var duration: Double?
    /// Average frames per second, nil when the file does not say.
    public var frameRate: Double?
    public var hasAudio: Bool
    /// Bits per component (8, 10, ...).
    public var bits: Int
    /// The transfer function when it is HDR: "PQ" or "HLG"; nil for SDR.
    public var hdr: String?

    /// The upright size, as it is shown.
    public var size: Size {
        orientation.swapsAxes ? Size(width: Double(storedHeight), height: Double(storedWidth))
                              : Size(width: Double(storedWidth), height: Double(storedHeight))
    }

    /// Whether `path` is a video clip by its content: a video stream of more than one picture
    /// (MP4, MOV, WebM, MKV, an animated GIF). Stills, and files that are no media at all, are not.
    /// A file's content is looked at once while it stays the same file (`FileIdentity`): a
    /// batch's shared photo is probed once, not once per row.
    public static func isClip(_ path: String) -> Bool {
        probed.value(of: path) { segue_media_is_clip(path) == 1 } ?? (segue_media_is_clip(path) == 1)
    }

    private static let probed = ByFile<Bool>()

    /// Reads a clip's header. A file with no video stream, or one Segue cannot take (HDR),
    /// gives `ExportError.unsupportedClip`; an unreadable one `ExportError.damagedClip`.
    public static func probe(_ path: String, limits: Limits = Limits()) throws -> ClipInfo {
        var info = SegueClipInfo()
        var error = SegueAVError()
        // The size is checked below, from the header, with a message of Segue's own.
        guard let clip = segue_clip_open(path, Int64.max, &info, &error) else {
            if error.code == SEGUE_AV_UNSUPPORTED { throw ExportError.unsupportedClip(path: path, reason: error.text) }
            throw ExportError.damagedClip(path: path, reason: error.text)
        }
        segue_clip_close(clip)
        let result = ClipInfo(info)
        if let hdr = result.hdr {
            throw ExportError.unsupportedClip(path: path, reason: "an HDR clip (\(hdr) transfer); Segue makes SDR BT.709 video and does not tone-map HDR: convert it to SDR first, e.g. with ffmpeg's zscale and tonemap filters")
        }
        if limits.maxSide < max(result.storedWidth, result.storedHeight) || result.storedWidth * result.storedHeight > limits.maxPixels {
            throw ExportError.clipTooLarge(path: path, reason: "its pictures are \(result.storedWidth)x\(result.storedHeight), over the limit of \(limits.maxSide) pixels a side and \(limits.maxPixels) pixels in all (raise it with --max-image-pixels)")
        }
        return result
    }

    init(_ info: SegueClipInfo) {
        storedWidth = Int(info.width)
        storedHeight = Int(info.height)
        orientation = Orientation(rawValue: Int(info.orientation)) ?? .up
        duration = info.duration > 0 ? info.duration : nil
        frameRate = info.frame_rate > 0 ? info.frame_rate : nil
        hasAudio = info.has_audio != 0
        bits = Int(info.bits)
        hdr = info.transfer == 1 ? "PQ" : info.transfer == 2 ? "HLG" : nil
    }
}

/// How a slide uses its clip: the part played and its sound.
public struct ClipSettings: Sendable, Equatable {
    /// The part of the clip played: from `start` seconds into it, for a duration or to its end.
    public var part = Span()
    /// Whether the clip's own sound is mixed into the soundtrack.
    public var audio = false
    /// The gain of the clip's sound (linear, 1 as recorded).
    public var volume = 1.0

    public init(start: Double = 0, duration: Double? = nil, audio: Bool = false, volume: Double = 1) {
        self.part = Span(start: start, length: duration)
        self.audio = audio
        self.volume = volume
    }
}

/// A slide that plays a clip: the file, what its header says, and the part played.
public struct ClipSlide: Sendable, Equatable {
    public var path: String
    public var info: ClipInfo
    public var settings: ClipSettings

    /// Seconds of the clip the slide plays: its trimmed length; nil when the file does not
    /// say how long it is and no duration is given.
    public var length: Double? {
        if let duration = settings.part.length { return duration }
        return info.duration.map { max(0, $0 - settings.part.start) }
    }
}

/// The pictures of one clip slide, decoded in order on a thread of its own as the frames
/// that show them are planned, each converted to RGBA once, when a frame first draws it.
///
/// Frames are planned in order, a few ahead of those being composed (`FramePipeline`): the
/// plan of a frame that shows the clip asks for its clip time and the sizes it is drawn at
/// (`request`) and gets a promise of those pictures, which the frame's compositor waits on.
/// The decoding thread works through the requests as they come: it decodes the frame on
/// screen and cuts (and, for planar YUV drawn at another size, scales) the part drawn, still
/// in the clip's own pixel format. The compositor converts it to RGBA when it draws the frame.
/// So only the clip frames shown are converted, and memory stays flat however long the clip:
/// the pictures held ahead are YUV (1.5 bytes a pixel for yuv420p), and only those being
/// drawn are RGBA (4 bytes).
final class ClipFeed: Sendable {
    typealias Pictures = Promise<[PictureKey: ClipPicture]>

    private struct Request {
        /// Seconds of clip time (from the start of the slide's part).
        var time: Double
        var keys: [PictureKey]
        var pictures: Pictures
    }

    private struct State {
        var requests: [Request] = []
        var opened = false
        /// No more requests come; the thread ends once it has served those made.
        var closed = false
        /// The export stopped: the thread ends at once, failing what it has not served.
        var stopped = false
    }

    let clip: ClipSlide
    private let limits: Limits
    /// Threads a scaled clip picture is scaled and converted on.
    private let threads: Int
    private let state = Locked(State())
    /// Signalled once per request, and once by `close` and `stop`.
    private let wake = DispatchSemaphore(value: 0)
    /// What converts the feed's pictures, and the memory of pictures drawn.
    private let conversion: ClipConversion

    init(clip: ClipSlide, limits: Limits, threads: Int = 1) {
        self.clip = clip
        self.limits = limits
        self.threads = max(1, threads)
        conversion = ClipConversion(path: clip.path, threads: self.threads)
    }

    deinit { stop() }

    /// Opens the clip and seeks to its part on the decoding thread, once, ahead of the first request.
    func open() {
        let start = state.withLock { state -> Bool in
            guard !state.opened, !state.stopped, !state.closed else { return false }
            state.opened = true
            return true
        }
        guard start else { return }
        Threads.start(.decodingClip, stackSize: 1 << 21) { [self] in decode() }
    }

    /// The pictures `keys` of the frame on screen at clip time `time`; requests come in the
    /// order of their frames, so times never decrease.
    func request(time: Double, keys: [PictureKey]) -> Pictures {
        let pictures = Pictures()
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped, !state.closed else { return false }
            state.requests.append(Request(time: time, keys: keys, pictures: pictures))
            return true
        }
        guard accepted else {
            pictures.fulfil(.failure(ExportError.cancelled))
            return pictures
        }
        open()
        wake.signal()
        return pictures
    }

    /// No more requests: the decoding thread serves those made, then closes the clip. Once;
    /// later calls (each frame shown past the clip's last) do nothing.
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if first { wake.signal() }
    }

    /// Stops decoding: what is not served yet fails as cancelled.
    func stop() {
        let left = state.withLock { state -> [Request] in
            state.stopped = true
            defer { state.requests = [] }
            return state.requests
        }
        for request in left { request.pictures.fulfil(.failure(ExportError.cancelled)) }
        wake.signal()
    }

    /// The next request to serve; nil when the thread is to end.
    private func next() -> Request? {
        while true {
            wake.wait()
            enum Step { case serve(Request), end, wait }
            let step = state.withLock { state -> Step in
                if state.stopped { return .end }
                if !state.requests.isEmpty { return .serve(state.requests.removeFirst()) }
                return state.closed ? .end : .wait
            }
            switch step {
            case let .serve(request): return request
            case .end: return nil
            case .wait: continue
            }
        }
    }

    /// The decoding thread: each request's frame, cut to each size asked. A clip that cannot
    /// be read fails every request with the reason.
    private func decode() {
        var info = SegueClipInfo()
        var error = SegueAVError()
        let decoder = segue_clip_open(clip.path, Int64(limits.maxPixels), &info, &error)
        defer { if let decoder { segue_clip_close(decoder) } }
        var failure: (any Error)?
        if decoder == nil {
            failure = ExportError.damagedClip(path: clip.path, reason: error.text)
        } else if segue_clip_seek(decoder, clip.settings.part.start, &error) < 0 {
            failure = ExportError.damagedClip(path: clip.path, reason: error.text)
        }
        let orientation = Orientation(rawValue: Int(info.orientation)) ?? .up
        var made: [PictureKey: ClipPicture] = [:]   // the frame on screen, at each size cut
        while let request = next() {
            if let failure {
                request.pictures.fulfil(.failure(failure))
                continue
            }
            request.pictures.fulfil(Result {
                var shown = 0.0
                let changed = segue_clip_advance(decoder, clip.settings.part.start + request.time, &shown, &error)
                guard changed >= 0 else { throw ExportError.damagedClip(path: clip.path, reason: error.text) }
                if changed == 1 { made = [:] }
                var pictures: [PictureKey: ClipPicture] = [:]
                for key in request.keys {
                    var size = key
                    size.time = 0
                    if made[size] == nil { made[size] = try cut(decoder!, key, orientation: orientation) }
                    pictures[key] = made[size]
                }
                return pictures
            }.mapError { error in
                failure = error
                return error
            })
        }
    }

    /// The part `key.crop` of the frame on screen at `key`'s size, in the clip's pixel format.
    private func cut(_ decoder: OpaquePointer, _ key: PictureKey, orientation: Orientation) throws -> ClipPicture {
        var storedWidth: Int32 = 0, storedHeight: Int32 = 0
        segue_clip_size(decoder, &storedWidth, &storedHeight)
        let region = orientation.storedRect(of: key.crop, width: Double(storedWidth), height: Double(storedHeight))
        // A backdrop is cut smaller, made into its effect at the drawn size when converted.
        let cut = key.effect.reducedSize(width: key.width, height: key.height)
        let upright = key.effect == .none ? (width: key.width, height: key.height) : cut
        let width = orientation.swapsAxes ? upright.height : upright.width, height = orientation.swapsAxes ? upright.width : upright.height
        var error = SegueAVError()
        guard let picture = segue_clip_picture(decoder, region.minX, region.minY, region.width, region.height,
                                               Int32(width), Int32(height), Int32(clamping: threads), &error) else {
            throw ExportError.damagedClip(path: clip.path, reason: error.text)
        }
        return ClipPicture(picture, width: upright.width, height: upright.height, orientation: orientation,
                           effect: key.effect, drawn: (key.width, key.height), conversion: conversion)
    }
}

/// A part of one clip frame, cut by the decoding thread in the clip's own pixel format and
/// converted to RGBA, upright and premultiplied, by the first frame that draws it; the frames
/// after it that show the same clip frame at that size draw the same pixels.
final class ClipPicture: @unchecked Sendable {
    // @unchecked: `picture` is only read once made (libswscale reads it; FFmpeg counts its
    // references atomically) and `image` is reached only under `lock`.
    private let picture: OpaquePointer
    private let width: Int, height: Int
    private let orientation: Orientation
    private let effect: PictureEffect
    /// The size the effect's picture is drawn at.
    private let drawn: (width: Int, height: Int)
    private let conversion: ClipConversion
    private let lock = NSLock()
    private var image: Image?

    fileprivate init(_ picture: OpaquePointer, width: Int, height: Int, orientation: Orientation, effect: PictureEffect,
                     drawn: (width: Int, height: Int), conversion: ClipConversion) {
        self.picture = picture
        self.effect = effect
        self.drawn = drawn
        self.width = width
        self.height = height
        self.orientation = orientation
        self.conversion = conversion
    }

    deinit {
        segue_clip_picture_free(picture)
        if let image { conversion.retire(image) }
    }

    /// Copies the picture as it is into `planes`, a `width` x `height` frame's, when it needs
    /// no drawing to be that frame: upright, without an effect, already the encoder's yuv420p
    /// (`segue_clip_picture_copy_yuv420p`). False when it must be drawn.
    func copy(into planes: YUVPlanes, width: Int, height: Int) -> Bool {
        guard orientation == .up, effect == .none else { return false }
        let pointers: [UnsafeMutablePointer<UInt8>?] = [planes.y, planes.u, planes.v]
        let strides = [Int32(planes.yStride), Int32(planes.uStride), Int32(planes.vStride)]
        return segue_clip_picture_copy_yuv420p(picture, Int32(width), Int32(height), pointers, strides) == 1
    }

    /// The picture's pixels at the size it is drawn, upright and premultiplied.
    func rgba() throws -> Image {
        lock.lock()
        defer { lock.unlock() }
        if let image { return image }
        var made = try conversion.convert(picture, width: width, height: height, orientation: orientation)
        if effect != .none {
            let small = made
            made = effect.apply(to: small, width: drawn.width, height: drawn.height, storage: conversion.pixels)
            conversion.retire(small)
        }
        image = made
        return made
    }
}

/// What a clip feed's pictures are converted with: libswscale's converters, one per thread
/// converting at once, and the memory of pictures drawn, which the next ones reuse.
final class ClipConversion: Sendable {
    private struct Converters: @unchecked Sendable {
        // @unchecked: each converter is used by one thread at a time, taken out of `idle`.
        var idle: [OpaquePointer] = []
    }

    private let path: String
    private let threads: Int
    private let converters = Locked(Converters())
    private let spares = Locked(SparePictures())

    init(path: String, threads: Int) {
        self.path = path
        self.threads = threads
    }

    deinit {
        converters.withLock { $0.idle.forEach { segue_clip_converter_free($0) } }
    }

    /// A drawn picture's memory, for the next of its size once nothing else holds it.
    func retire(_ image: Image) { spares.withLock { $0.retire([image]) } }

    /// `count` pixels written by `write`, in the memory of a picture no longer shown when one
    /// of that size is spare.
    func pixels(count: Int, _ write: (UnsafeMutablePointer<UInt32>) -> Void) -> [UInt32] {
        [UInt32](converted: count, reusing: spares.withLock { $0.take(count: count) }, write)
    }

    /// `picture` converted to `width` x `height` RGBA (as shown, after `orientation` turns it).
    func convert(_ picture: OpaquePointer, width: Int, height: Int, orientation: Orientation) throws -> Image {
        guard let converter = converters.withLock({ $0.idle.popLast() }) ?? segue_clip_converter_new() else {
            throw ExportError.damagedClip(path: path, reason: "out of memory")
        }
        defer { converters.withLock { $0.idle.append(converter) } }
        let count = width * height
        var error = SegueAVError()
        var status: Int32 = 0, opaque = true
        let pixels = [UInt32](converted: count, reusing: spares.withLock { $0.take(count: count) }) { buffer in
            buffer.withMemoryRebound(to: UInt8.self, capacity: count * 4) { bytes in
                status = segue_clip_picture_convert(picture, converter, Int32(clamping: threads), bytes, &error)
            }
            if status == 1 { opaque = segue_premultiply(buffer, count) == 1 }
        }
        if status < 0 { throw ExportError.damagedClip(path: path, reason: error.text) }
        if orientation == .up { return Image(width: width, height: height, pixels: pixels, isOpaque: opaque) }
        // A turned clip's stored picture is only a step: its memory goes back for the next one.
        let storedWidth = orientation.swapsAxes ? height : width, storedHeight = orientation.swapsAxes ? width : height
        let upright = [UInt32](converted: count, reusing: spares.withLock { $0.take(count: count) }) { buffer in
            orientation.turn(pixels, width: storedWidth, height: storedHeight, into: buffer)
        }
        retire(Image(width: storedWidth, height: storedHeight, pixels: pixels, isOpaque: opaque))
        return Image(width: width, height: height, pixels: upright, isOpaque: opaque)
    }
}

/// Pictures of a clip no longer drawn, whose memory the next ones of their size reuse once
/// nothing else holds them (another frame may still be drawing one). Without them each new
/// frame's picture would be fresh pages from the system (8 MB at 1080x1920, in a mapping of
/// its own), each page faulted in and the whole unmapped again.
struct SparePictures {
    private var pictures: [Image] = []
    /// More than the pictures being drawn at once.
    static let limit = 4

    mutating func retire(_ images: some Sequence<Image>) {
        pictures.append(contentsOf: images)
        if pictures.count > SparePictures.limit { pictures.removeFirst(pictures.count - SparePictures.limit) }
    }

    /// The pixels of a picture of `count` pixels that only this holds, let go of: its storage
    /// is then the caller's alone. Only storage with libswscale's room past the pixels (as
    /// `[UInt32](converted:)` makes it) is worth taking: other storage would be copied.
    mutating func take(count: Int) -> [UInt32]? {
        for i in pictures.indices where pictures[i].pixels.count == count && pictures[i].pixels.capacity >= count + [UInt32].rgbaSlack
            && isKnownUniquelyReferenced(&pictures[i]) {
            let pixels = pictures[i].pixels
            pictures.remove(at: i)
            return pixels
        }
        return nil
    }
}
