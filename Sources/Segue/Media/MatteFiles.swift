import CSegueAV
import Foundation

/// The mattes of luma wipes made from files, for each canvas size once and kept: a picture's
/// decoded and fitted, a clip's frames decoded once and fitted as the transition asks for them.
/// (Segue's own mattes are drawn by the transition itself, `MatteShape`.)
final class MatteFiles: Sendable {
    static let shared = MatteFiles()

    private struct Key: Hashable {
        let path: String
        let width: Int, height: Int
        let fill: Bool, invert: Bool
    }
    private let kept = Locked([Key: Result<any MatteSupply, ExportError>]())

    /// What gives the matte of the picture or clip at `path` on a `width` x `height` canvas;
    /// thrown when the file is not a picture or clip, or does not read.
    func supply(_ path: String, fill: Bool, invert: Bool, width: Int, height: Int, limits: Limits) throws -> any MatteSupply {
        let key = Key(path: path, width: width, height: height, fill: fill, invert: invert)
        return try kept.withLock { kept in
            if let found = kept[key] { return try found.get() }
            let made = Result { () throws(ExportError) -> any MatteSupply in
                do {
                    if ClipInfo.isClip(path) {
                        return try MatteClip(path: path, width: width, height: height, fill: fill, invert: invert, limits: limits)
                    }
                    return FixedMatte(matte: try MatteFiles.picture(path, width: width, height: height, fill: fill, invert: invert, limits: limits))
                } catch let error as ExportError { throw error } catch {
                    throw ExportError.unsupportedImage(path: path, reason: "\(error)")
                }
            }
            kept[key] = made
            return try made.get()
        }
    }

    /// A picture's lightness fitted to the canvas (cropped to cover it, or stretched),
    /// resampled bilinearly in floating point and stretched over the whole range.
    static func picture(_ path: String, width: Int, height: Int, fill: Bool, invert: Bool, limits: Limits) throws(ExportError) -> Matte {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw ExportError.unreadableImage(path: path, reason: isFolder.boolValue ? "it is a folder, not a matte picture or clip" : "no such file (a luma wipe's matte)")
        }
        if let declared = ImageHeader.size(of: path) {
            do { try limits.check(width: declared.width, height: declared.height, path: path) } catch let error as ExportError { throw error } catch {}
        }
        var decoded = SegueDecodedImage()
        var error = SegueAVError()
        let status = segue_image_decode(path, Int64(limits.maxPixels), Int32(clamping: limits.maxSide), &decoded, &error)
        defer { segue_image_free(&decoded) }
        guard status == 0 else {
            throw ExportError.unsupportedImage(path: path, reason: "named by transition.matte, it is neither a picture nor a clip (\(error.text))")
        }
        let stored = (width: Int(decoded.width), height: Int(decoded.height))
        var gray = [UInt16](repeating: 0, count: stored.width * stored.height + Int(SEGUE_RGBA_SLACK) / 2)
        guard segue_image_gray16(&decoded, &gray, &error) == 0 else {
            throw ExportError.unsupportedImage(path: path, reason: "its lightness cannot be read as a matte: \(error.text)")
        }
        let orientation = Orientation(rawValue: Int(decoded.orientation)) ?? .up
        let levels = sampled(stored: gray, stored.width, stored.height, orientation: orientation, width: width, height: height, fill: fill) { Float($0) / 65535 }
        return Matte.levels(levels, width: width, height: height, stretch: true, invert: invert)
    }

    /// A stored picture of `storedWidth` x `storedHeight` values, turned upright by
    /// `orientation`, fitted to `width` x `height` and sampled bilinearly at each pixel's centre.
    static func sampled<T>(stored: [T], _ storedWidth: Int, _ storedHeight: Int, orientation: Orientation, width: Int, height: Int,
                           fill: Bool, level: (T) -> Float) -> [Float] {
        let upright = orientation.swapsAxes ? Size(width: Double(storedHeight), height: Double(storedWidth))
                                            : Size(width: Double(storedWidth), height: Double(storedHeight))
        let canvas = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        let source = (fill ? ContentsGravity.fill : .stretch).placement(of: upright, in: canvas).source
        let sx = source.width / Double(width), sy = source.height / Double(height)
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let uy = source.minY + (Double(y) + 0.5) * sy
            for x in 0..<width {
                let ux = source.minX + (Double(x) + 0.5) * sx
                let p = orientation.storedPoint(x: ux, y: uy, width: Double(storedWidth), height: Double(storedHeight))
                let fx = min(max(p.x - 0.5, 0), Double(storedWidth - 1)), fy = min(max(p.y - 0.5, 0), Double(storedHeight - 1))
                let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, storedWidth - 1), y1 = min(y0 + 1, storedHeight - 1)
                let tx = Float(fx - Double(x0)), ty = Float(fy - Double(y0))
                let top = level(stored[y0 * storedWidth + x0]) * (1 - tx) + level(stored[y0 * storedWidth + x1]) * tx
                let bottom = level(stored[y1 * storedWidth + x0]) * (1 - tx) + level(stored[y1 * storedWidth + x1]) * tx
                out[y * width + x] = top * (1 - ty) + bottom * ty
            }
        }
        return out
    }
}

/// A clip used as a matte: its frames' lightness at the clip's own size, all decoded once in
/// order (so that a frame asked for is the same whatever order several threads ask in), each
/// fitted to the canvas when asked for, the last few kept. A clip's values are used as they
/// are (not stretched frame by frame, which would make a fading matte flicker).
final class MatteClip: MatteSupply {
    /// The most bytes of lightness a clip matte keeps (its frames at its own size).
    static let maxBytes = 1 << 30

    private let frames: [(time: Double, luma: [UInt8])]
    private let stored: (width: Int, height: Int)
    private let duration: Double
    private let width: Int, height: Int, fill: Bool, invert: Bool
    private let orientation: Orientation
    private let fitted = Locked([(index: Int, matte: Matte)]())

    init(path: String, width: Int, height: Int, fill: Bool, invert: Bool, limits: Limits) throws {
        let info = try ClipInfo.probe(path, limits: limits)
        var raw = SegueClipInfo()
        var error = SegueAVError()
        guard let clip = segue_clip_open(path, Int64(limits.maxPixels), &raw, &error) else {
            throw ExportError.damagedClip(path: path, reason: error.text)
        }
        defer { segue_clip_close(clip) }
        (self.width, self.height, self.fill, self.invert) = (width, height, fill, invert)
        orientation = info.orientation
        stored = (info.storedWidth, info.storedHeight)
        // Refused from what its header says (length and rate), before a frame is decoded.
        if let duration = info.duration, let rate = info.frameRate {
            let declared = Int(min(duration * rate, 1e12).rounded(.up))
            if Double(declared) * Double(stored.width * stored.height) > Double(MatteClip.maxBytes) {
                throw ExportError.clipTooLarge(path: path, reason: "as a luma wipe's matte it would keep its \(declared) frames of \(stored.width)x\(stored.height) (\(String(format: "%.1f", duration)) s at \(String(format: "%g", rate)) fps), over \(MatteClip.maxBytes >> 20) MiB: use a shorter or smaller clip")
            }
        }
        let length = info.duration ?? 60
        let step = 0.5 / (info.frameRate ?? 120)
        var frames: [(time: Double, luma: [UInt8])] = []
        var rgba = [UInt8](repeating: 0, count: stored.width * stored.height * 4 + Int(SEGUE_RGBA_SLACK))
        var time = 0.0
        while time <= length {
            var shown = 0.0
            let changed = segue_clip_advance(clip, time, &shown, &error)
            guard changed >= 0 else { throw ExportError.damagedClip(path: path, reason: error.text) }
            if frames.isEmpty || shown > frames[frames.count - 1].time {
                guard (frames.count + 1) * stored.width * stored.height <= MatteClip.maxBytes else {
                    throw ExportError.clipTooLarge(path: path, reason: "as a luma wipe's matte it would keep \(frames.count + 1) frames of \(stored.width)x\(stored.height), over \(MatteClip.maxBytes >> 20) MiB: use a shorter or smaller clip")
                }
                guard segue_clip_convert(clip, 0, 0, Double(stored.width), Double(stored.height), Int32(stored.width), Int32(stored.height),
                                         1, &rgba, &error) >= 0 else { throw ExportError.damagedClip(path: path, reason: error.text) }
                // BT.709's luma of the straight colour, in 65536ths.
                let luma = (0..<(stored.width * stored.height)).map { i -> UInt8 in
                    let y = UInt32(rgba[4 * i]) * 13933 + UInt32(rgba[4 * i + 1]) * 46871 + UInt32(rgba[4 * i + 2]) * 4732
                    return UInt8((y + 32768) >> 16)
                }
                frames.append((shown, luma))
            }
            time += step
        }
        guard !frames.isEmpty else { throw ExportError.damagedClip(path: path, reason: "no frame could be decoded for a luma wipe's matte") }
        self.frames = frames
        duration = info.duration ?? frames[frames.count - 1].time
    }

    /// The matte at `fraction` (0...1) of the clip's length: its frame with the latest time
    /// at or before that point.
    func matte(at fraction: Double) -> Matte? {
        let time = min(max(fraction, 0), 1) * duration
        let index = max(0, (frames.lastIndex { $0.time <= time }) ?? 0)
        if let kept = fitted.withLock({ $0.first { $0.index == index }?.matte }) { return kept }
        let levels = MatteFiles.sampled(stored: frames[index].luma, stored.width, stored.height, orientation: orientation,
                                        width: width, height: height, fill: fill) { Float($0) / 255 }
        let matte = Matte.levels(levels, width: width, height: height, stretch: false, invert: invert)
        fitted.withLock { fitted in
            if !fitted.contains(where: { $0.index == index }) { fitted.append((index, matte)) }
            if fitted.count > 8 { fitted.removeFirst() }
        }
        return matte
    }
}

/// A picture's matte: the same at every time.
struct FixedMatte: MatteSupply {
    let matte: Matte
    func matte(at fraction: Double) -> Matte? { matte }
}
