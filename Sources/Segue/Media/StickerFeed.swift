import CSegueAV
import Foundation

extension Sticker {
    /// What the file holds: its size and frames. Throws the library's reason when it is
    /// not a picture or animation that can be read (or is over `limits`).
    static func probe(_ path: String, limits: Limits) throws -> SegueStickerInfo {
        var info = SegueStickerInfo(), error = SegueAVError()
        guard let sticker = segue_sticker_open(path, Int64(limits.maxPixels), &info, &error) else {
            throw ExportError.unreadableImage(path: path, reason: error.text)
        }
        segue_sticker_close(sticker)
        if info.width > limits.maxSide || info.height > limits.maxSide || info.width * info.height > limits.maxPixels {
            throw ExportError.imageTooLarge(path: path, width: Int(info.width), height: Int(info.height), limits: limits)
        }
        return info
    }
}

/// An animated sticker's frames, decoded in order as frames ask for them: when each shows,
/// and the few made last (frames composed side by side ask for neighbours out of order), so
/// memory stays the same however long it loops.
final class StickerFeed: @unchecked Sendable {
    // @unchecked: `sticker` and `recent` are reached only under `lock`.
    let path: String
    /// Seconds each frame shows from, and one pass's length.
    let starts: [Double]
    let duration: Double
    let size: Size
    private let sticker: OpaquePointer
    private let lock = NSLock()
    private var recent: [(index: Int, image: Image)] = []
    private var made = -1

    static let kept = 4

    init(path: String, limits: Limits) throws {
        var info = SegueStickerInfo(), error = SegueAVError()
        guard let sticker = segue_sticker_open(path, Int64(limits.maxPixels), &info, &error) else {
            throw ExportError.unreadableImage(path: path, reason: error.text)
        }
        self.path = path
        self.sticker = sticker
        starts = (0..<Int(info.frames)).map { segue_sticker_frame_start(sticker, Int32($0)) }
        duration = info.duration
        size = Size(width: Double(info.width), height: Double(info.height))
    }

    deinit { segue_sticker_close(sticker) }

    /// The start of the frame showing `time` seconds after the sticker first shows: within
    /// one pass when it loops, else the last frame once the pass is over.
    func frameStart(at time: Double, loop: Bool) -> Double {
        guard starts.count > 1, duration > 0 else { return 0 }
        var t = max(0, time)
        if loop { t = t.truncatingRemainder(dividingBy: duration) }
        return starts[index(at: t)]
    }

    /// The frame showing at `t` seconds into a pass (1 µs early counts, so that a frame due
    /// at a video frame's time is not missed by rounding).
    private func index(at t: Double) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= t + 1e-6 { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The frame that starts at `start` seconds, premultiplied RGBA at the sticker's size.
    func frame(startingAt start: Double) throws -> Image {
        let k = index(at: start)
        lock.lock()
        defer { lock.unlock() }
        if let kept = recent.first(where: { $0.index == k }) { return kept.image }
        // Decoded forward; from the start again when the frame is before those made (a loop).
        var from = made + 1
        if k <= made { from = 0 }
        var image: Image?
        for index in from...k {
            let width = Int(size.width), height = Int(size.height)
            var error = SegueAVError()
            var opaque: Int32 = 0
            let pixels = [UInt32](unsafeUninitializedCapacity: width * height) { buffer, count in
                opaque = segue_sticker_frame(sticker, Int32(index), buffer.baseAddress, &error)
                count = opaque < 0 ? 0 : width * height
            }
            guard opaque >= 0 else {
                made = -1
                recent = []
                throw ExportError.unreadableImage(path: path, reason: error.text)
            }
            made = index
            let made = Image(width: width, height: height, pixels: pixels, isOpaque: opaque == 1)
            recent.append((index, made))
            if recent.count > StickerFeed.kept { recent.removeFirst() }
            image = made
        }
        return image!
    }
}

extension Overlay {
    /// Where a logo sits unless the preset says: a fifth of the width, in the bottom right
    /// corner, a little see-through.
    static var logoDefaults: Overlay {
        var logo = Overlay(sticker: Sticker(path: "", width: 0.2))
        logo.at = Point(x: 0.95, y: 0.95)
        logo.anchor = Point(x: 1, y: 1)
        logo.opacity = 0.9
        return logo
    }
}
