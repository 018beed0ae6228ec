import Foundation

/// A picture over a page or the screen (a sticker, a logo), still or animated, sized by itself:
/// a still one decoded when the storyboard is made, an animated one's frames decoded in order
/// as frames ask for them (`StickerFeed`).
extension OverlayKind {
    static let sticker = OverlayKind(
        name: "sticker", key: "image",
        heading: "Stickers (`overlays:` items with `image:`)",
        about: """
            A picture instead of words, placed, timed and animated by the same keys. A slide's
            stickers ride on its page; a story's are fixed to the screen. An animated one (GIF,
            APNG, animated WebP, WebM or MOV with alpha) plays at its own frame timing.
            """,
        sample: "(none).png",
        read: { r, item, reading in try Overlay.readSticker(&r, item: item, limits: reading.limits)! },
        place: placeSticker,
        label: { "the sticker \(fileName($0))" }, shortLabel: fileName,
        stills: { overlay in overlay.sticker.flatMap { $0.isAnimated ? nil : [$0.path] } ?? [] },
        changesWithTime: { $0.sticker?.isAnimated ?? false },
        fingerprint: { overlay, document in
            guard let sticker = overlay.sticker else { return [:] }
            return ["sticker": .object(["file": .string(try document.file(sticker.path)), "width": .optional(sticker.width),
                                        "height": .optional(sticker.height), "loop": .flag(sticker.loop), "frames": .number(Double(sticker.frames))])]
        })

    private static func fileName(_ overlay: Overlay) -> String { ((overlay.sticker?.path ?? "") as NSString).lastPathComponent }

    private static func placeSticker(_ overlay: Overlay, number: Int, making: inout OverlayPictures.Making) throws -> OverlayPictures.Placed {
        guard let sticker = overlay.sticker else { preconditionFailure("a sticker overlay without its sticker") }
        let source = PictureSource.overlay(number, animated: sticker.isAnimated)
        let size: Size, limits = making.limits
        var feed: StickerFeed?
        if sticker.isAnimated {
            // One feed a file: overlays of one clip (a story's stingers) share its decoder
            // and the frames it keeps, which it decodes again from the start for each.
            let animated = try making.feeds[sticker.path] ?? StickerFeed(path: sticker.path, limits: limits)
            making.feeds[sticker.path] = animated
            size = animated.size
            feed = animated
            making.make(source) { time in try animated.frame(startingAt: time) }
        } else {
            let image = try Image.decode(path: sticker.path, limits: limits)
            size = image.size
            making.decoded[source] = image
            making.make(source) { _ in try Image.decode(path: sticker.path, limits: limits) }
        }
        let canvas = making.canvas
        let pixels = sticker.drawnPixels(of: size, page: canvas.bounds.size, scale: canvas.scale)
        let drawn = Size(width: Double(pixels.width), height: Double(pixels.height))
        return OverlayPictures.Placed(overlay: overlay, source: source, size: size, block: Rect(size: drawn), drawn: drawn, feed: feed,
                                      safe: overlay.placed ? EdgeInsets() : canvas.safeArea)
    }
}
