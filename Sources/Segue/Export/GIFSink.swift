import CSegueAV
import Foundation

/// An animated GIF through FFmpeg's two-pass palette: every frame is first given to
/// palettegen (`GIFPaletteSink`), then composed again and mapped to that palette by paletteuse
/// and encoded (`GIFSink`). Composing twice keeps memory flat, where one pass would hold every
/// frame until the palette is known. With `palette: frame` one pass makes a palette per frame.
final class GIFPaletteSink: FrameSink {
    let palette: OpaquePointer
    private let path: String

    init(path: String, width: Int, height: Int, fps: FrameRate, settings: Preset.GIFSettings) throws {
        self.path = path
        var error = SegueAVError()
        guard let made = segue_gif_palette_new(Int32(width), Int32(height), Int32(fps.numerator), Int32(fps.denominator), settings.palette == .diff ? "diff" : "full", &error) else {
            throw ExportError.encoder(path: path, reason: error.text)
        }
        palette = made
    }

    deinit { segue_gif_palette_free(palette) }

    func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        var error = SegueAVError()
        let status = frame.pixels.withMemoryRebound(to: UInt8.self, capacity: frame.width * frame.height * 4) {
            segue_gif_palette_add(palette, $0, Int32(frame.width * 4), &error)
        }
        guard status == 0 else { throw ExportError.encoder(path: path, reason: error.text) }
    }

    func finish() throws {
        var error = SegueAVError()
        guard segue_gif_palette_finish(palette, &error) == 0 else { throw ExportError.encoder(path: path, reason: error.text) }
    }

    func abort() {}
}

/// The GIF itself, mapped to a finished palette (or one per frame) and encoded.
final class GIFSink: FrameSink {
    private let file: StagedFile
    private var gif: OpaquePointer?
    private let fingerprint: String?
    /// Kept alive while the GIF is written from it.
    private let palette: GIFPaletteSink?

    init(path: String, width: Int, height: Int, fps: FrameRate, settings: Preset.GIFSettings, palette: GIFPaletteSink?,
         fingerprint: String?, replace: Bool) throws {
        file = try StagedFile(target: path, replace: replace)
        self.fingerprint = fingerprint
        self.palette = palette
        var error = SegueAVError()
        let opened = file.temporary.withCString { tmp in
            settings.dither.withCString { dither in
                var config = SegueGIFConfig(path: tmp, width: Int32(width), height: Int32(height), fps_num: Int32(fps.numerator), fps_den: Int32(fps.denominator), loop: Int32(settings.loop),
                                            dither: dither, palette: palette?.palette, diff: settings.palette == .diff ? 1 : 0)
                return segue_gif_open(&config, &error)
            }
        }
        guard let opened else {
            file.discard()
            throw ExportError.encoder(path: path, reason: error.text)
        }
        gif = opened
    }

    deinit { abort() }

    func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        var error = SegueAVError()
        let status = frame.pixels.withMemoryRebound(to: UInt8.self, capacity: frame.width * frame.height * 4) {
            segue_gif_write(gif, $0, Int32(frame.width * 4), &error)
        }
        guard status == 0 else { throw ExportError.encoder(path: file.target, reason: error.text) }
    }

    func finish() throws {
        var error = SegueAVError()
        let result = segue_gif_finish(gif, &error)
        segue_gif_free(gif)
        gif = nil
        guard result == 0 else {
            file.discard()
            throw ExportError.encoder(path: file.target, reason: error.text)
        }
        try file.commit(sidecar: Fingerprint.sidecar(for: file.target, format: .gif), fingerprint: fingerprint)
    }

    func abort() {
        guard let gif else { return }
        segue_gif_free(gif)
        self.gif = nil
        file.discard()
    }
}
