import Foundation

/// One PNG contact sheet: the frames it is given, shrunk to thumbnails and tiled in rows
/// on a dark background, so a whole video can be seen in one picture.
public final class SheetSink: FrameSink {
    /// Thumbnail height in pixels.
    public static let thumbnailHeight = 240
    public static let columns = 6
    public static let gap = 4
    static let background: UInt32 = 0xFF20_2020

    private let file: StagedFile
    private let fingerprint: String?
    private let thumbWidth: Int, thumbHeight: Int
    private var thumbnails: [Image] = []

    /// `fingerprint`, if given, is kept beside the sheet as `.NAME.segue-fingerprint`.
    public init(path: String, frameWidth: Int, frameHeight: Int, fingerprint: String? = nil, replace: Bool = false) throws {
        file = try StagedFile(target: path, replace: replace)
        self.fingerprint = fingerprint
        thumbHeight = min(frameHeight, SheetSink.thumbnailHeight)
        thumbWidth = max(1, Int((Double(frameWidth) * Double(thumbHeight) / Double(frameHeight)).rounded()))
    }

    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        let image = frame.image()
        thumbnails.append(image.resampled(from: Rect(size: image.size), width: thumbWidth, height: thumbHeight))
    }

    public func finish() throws {
        let columns = min(SheetSink.columns, max(1, thumbnails.count))
        let rows = (thumbnails.count + columns - 1) / columns
        let gap = SheetSink.gap
        let sheet = FrameBuffer(width: columns * thumbWidth + (columns + 1) * gap, height: max(1, rows) * thumbHeight + (max(1, rows) + 1) * gap)
        sheet.pixels.update(repeating: SheetSink.background, count: sheet.width * sheet.height)
        for (i, thumbnail) in thumbnails.enumerated() {
            let x0 = gap + (i % columns) * (thumbWidth + gap), y0 = gap + (i / columns) * (thumbHeight + gap)
            thumbnail.pixels.withUnsafeBufferPointer { source in
                for y in 0..<thumbHeight {
                    (sheet.pixels + (y0 + y) * sheet.width + x0).update(from: source.baseAddress! + y * thumbWidth, count: thumbWidth)
                }
            }
        }
        do {
            try sheet.writePNG(to: file.temporary)
        } catch {
            file.discard()
            throw ExportError.output(path: file.target, reason: "\(error)")
        }
        try file.commit(sidecar: Fingerprint.sidecar(for: file.target, format: .sheet), fingerprint: fingerprint)
    }

    public func abort() { file.discard() }
}
