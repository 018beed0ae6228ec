extension Storyboard {
    /// The clip picture that is frame `frame` by itself, when the frame is one clip picture
    /// alone drawn texel for pixel over the whole canvas (a clip's own time on screen, filling
    /// the frame): such a frame needs no composing, and the export may hand the decoded picture
    /// on as it is (`ClipPicture.copy(into:width:height:)`). Nil for any other frame. Waits for
    /// the picture's decoding.
    func soleClipPicture(of frame: FramePlan) throws -> ClipPicture? {
        guard frame.contents.count == 1, let slide = frame.contents[0].key.source.clipSlide, let feed = frame.clipPictures[slide] else { return nil }
        let key = frame.contents[0].key, width = canvas.width, height = canvas.height
        guard key.width == width, key.height == height, key.effect == .none else { return nil }
        // The scene, with a stand-in for the picture: one opaque quad, not faded, masked or
        // turned, whose texels are the canvas's pixels.
        let standIn = Image(standInWidth: width, height: height)
        let items = frame.scene.drawList(scale: canvas.scale, images: [key: standIn])
        guard items.count == 1, let item = items.first, item.opacity >= 1, item.masks.isEmpty,
              case let .image(image, source, toTexel) = item.paint, image === standIn,
              source == (x0: 0, y0: 0, x1: width, y1: height), toTexel.isIdentity,
              item.covers(width: width, height: height) else { return nil }
        return try feed.wait()[key]
    }
}

extension Homography {
    /// Whether the map leaves every point where it is (within a billionth of a pixel).
    var isIdentity: Bool {
        let e = 1e-9
        return abs(m11 - 1) < e && abs(m22 - 1) < e && abs(m33 - 1) < e && abs(m12) < e && abs(m21) < e
            && abs(m13) < e && abs(m23) < e && abs(m31) < e && abs(m32) < e
    }
}

extension DrawItem {
    /// Whether the item is the rectangle of a `width` x `height` canvas, corner for corner.
    func covers(width: Int, height: Int) -> Bool {
        let e = 1e-9, w = Double(width), h = Double(height)
        let expected = [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)]
        return corners.count == 4 && zip(corners, expected).allSatisfy { abs($0.x - $1.x) < e * w && abs($0.y - $1.y) < e * h }
    }
}
