import CSegueKernels

/// How a picture fills its page: cropped to cover it, letterboxed, stretched, or fitted
/// over a backdrop made from the picture itself (a blurred copy, or a gradient between the
/// colours of its top and bottom edges) or over a plain colour: what Instagram does with a
/// landscape photo in a 9:16 story.
public enum Fit: String, CaseIterable, Sendable, Codable {
    case fill, fit, stretch
    /// Fitted over a blurred, darkened copy of itself that covers the page.
    case blur
    /// Fitted over a vertical gradient between the dominant colours of its top and bottom edges.
    case gradient
    /// Fitted over the slide's (or canvas's) background colour.
    case color

    /// How the picture itself sits in the page.
    public var gravity: ContentsGravity {
        switch self {
        case .fill: return .fill
        case .stretch: return .stretch
        case .fit, .blur, .gradient, .color: return .fit
        }
    }

    /// What is made from the picture beneath it, if anything.
    var backdrop: PictureEffect {
        switch self {
        case .blur: return .blur
        case .gradient: return .gradient
        default: return .none
        }
    }

    static let meanings = "fill crops to cover the page, fit letterboxes, stretch distorts; blur fits the picture over a blurred copy of itself, gradient over a gradient between its top and bottom edges' colours, color over the background colour"
}

/// A picture made from a source rather than the source's pixels themselves.
public enum PictureEffect: Hashable, Sendable {
    case none
    /// Blurred (about 4 % of the page's width), darkened a little; prepared at a fraction
    /// of the size it is drawn at, which the blur makes invisible.
    case blur
    /// A vertical gradient between the dominant colours of the top and bottom edges.
    case gradient

    /// How much smaller than drawn the picture is made before the effect.
    var reduction: Double {
        switch self {
        case .none: return 1
        case .blur: return 8
        case .gradient: return 16
        }
    }

    /// The size the source's part is resampled to before the effect, for a picture drawn
    /// `width` x `height`: smaller by `reduction`, in even numbers (a clip's 4:2:0 part cut
    /// to an odd width reads past its rows).
    func reducedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        (2 * max(1, Int((Double(width) / reduction / 2).rounded())), 2 * max(1, Int((Double(height) / reduction / 2).rounded())))
    }

    /// The blur's radius in reduced pixels: 4 % of the reduced width.
    static func blurRadius(preparedWidth: Int) -> Int { max(1, Int((Double(preparedWidth) * 0.04).rounded())) }

    /// How dark a blurred backdrop is made: colour channels times 200 / 256 (alpha kept).
    static let darkening: UInt32 = 200

    /// The effect's picture at `width` x `height` (the size it is drawn), made from `image`,
    /// the source's part resampled to `reducedSize`: blurred there and magnified, so the
    /// compositor copies it as it is. Its pixels are written into memory from `storage`
    /// (a clip's pictures reuse those no longer shown).
    func apply(to image: Image, width: Int, height: Int,
               storage: (Int, (UnsafeMutablePointer<UInt32>) -> Void) -> [UInt32] = { count, write in [UInt32](converted: count, write) }) -> Image {
        switch self {
        case .none:
            return image
        case .blur:
            var small = image.pixels
            let radius = PictureEffect.blurRadius(preparedWidth: image.width)
            var status = small.withUnsafeMutableBufferPointer {
                segue_blur_rgba($0.baseAddress, Int32(image.width), Int32(image.height), Int32(radius), PictureEffect.darkening)
            }
            let pixels = storage(width * height) { out in
                status |= small.withUnsafeBufferPointer {
                    segue_magnify_rgba($0.baseAddress, Int32(image.width), Int32(image.height), out, Int32(width), Int32(height))
                }
            }
            precondition(status == 0, "out of memory making a backdrop")
            return Image(width: width, height: height, pixels: pixels, isOpaque: image.isOpaque)
        case .gradient:
            let band = max(1, image.height / 10)
            let top = PictureEffect.dominantColor(image, rows: 0..<band)
            let bottom = PictureEffect.dominantColor(image, rows: (image.height - band)..<image.height)
            let pixels = storage(width * height) { out in
                for y in 0..<height {
                    let t = height > 1 ? Double(y) / Double(height - 1) : 0
                    let p = (0..<4).reduce(UInt32(0)) { p, c in
                        p | UInt32(min(255, max(0, (top[c] + (bottom[c] - top[c]) * t).rounded()))) << (8 * UInt32(c))
                    }
                    segue_fill(out + y * width, width, p)
                }
            }
            return Image(width: width, height: height, pixels: pixels, isOpaque: image.isOpaque)
        }
    }

    /// The dominant colour of `rows` (premultiplied channels 0...255): the mean of the
    /// pixels in the most populated cell of a coarse colour histogram (4 levels a channel),
    /// so a sky's blue wins over a few bright clouds.
    static func dominantColor(_ image: Image, rows: Range<Int>) -> [Double] {
        var counts = [Int](repeating: 0, count: 64), sums = [[Double]](repeating: [0, 0, 0, 0], count: 64)
        for y in rows {
            for x in 0..<image.width {
                let p = image[x, y]
                let cell = Int((p & 0xC0) >> 6) | Int((p >> 8) & 0xC0) >> 4 | Int((p >> 16) & 0xC0) >> 2
                counts[cell] += 1
                for c in 0..<4 { sums[cell][c] += Double((p >> (8 * UInt32(c))) & 0xFF) }
            }
        }
        let best = counts.indices.max { counts[$0] < counts[$1] }!
        return sums[best].map { $0 / Double(max(1, counts[best])) }
    }
}

extension Layer {
    /// A page whose picture (its contents, or its moving picture layer's) sits over a
    /// backdrop made from the same picture: the backdrop covers the page, the picture and
    /// everything else on the page above it.
    func withBackdrop(_ effect: PictureEffect) -> Layer {
        guard effect != .none else { return self }
        var page = self
        // A still page's picture sits fitted in a known place: the backdrop is drawn only in
        // the bands it leaves (the rest would be drawn and then covered, every frame).
        var bands: [Rect]?
        if case let .picture(shown)? = contents, contentsGravity == .fit {
            bands = Layer.bands(beside: ContentsGravity.fit.placement(of: shown.shownSize, in: Rect(size: bounds.size)).destination, in: bounds.size)
        }
        if page.contents != nil {
            // A still page: its picture becomes the first sublayer, so that the backdrop can go beneath it.
            var picture = Layer(frame: Rect(size: bounds.size))
            picture.contents = page.contents
            picture.contentsGravity = page.contentsGravity
            picture.name = (name ?? "page") + " picture"
            page.contents = nil
            page.sublayers.insert(picture, at: 0)
        }
        guard let first = page.sublayers.first, case var .picture(picture)? = first.contents else { return self }
        picture.effect = effect
        var backdrop = Layer(frame: Rect(size: bounds.size))
        backdrop.contents = .picture(picture)
        backdrop.contentsGravity = .fill
        backdrop.name = (name ?? "page") + " backdrop"
        page.masksToBounds = true
        guard let bands else {
            page.sublayers.insert(backdrop, at: 0)
            return page
        }
        // Each band shows the whole backdrop (one prepared picture) within its part of the page.
        page.sublayers.insert(contentsOf: bands.map { band in
            var window = Layer(frame: band)
            window.masksToBounds = true
            window.name = (name ?? "page") + " backdrop band"
            var whole = backdrop
            whole.position = Point(x: whole.position.x - band.minX, y: whole.position.y - band.minY)
            window.sublayers = [whole]
            return window
        }, at: 0)
        return page
    }

    /// The parts of a page `size` big that `picture` (where a fitted picture lies) leaves
    /// uncovered: above and below it, or left and right, each reaching a little under it so
    /// no seam shows at its edge; none when it covers the page.
    static func bands(beside picture: Rect, in size: Size) -> [Rect] {
        let under = 2.0   // points under the picture's edge: two pixels or more
        var bands: [Rect] = []
        if picture.minY > 0.01 { bands.append(Rect(x: 0, y: 0, width: size.width, height: min(size.height, picture.minY + under))) }
        if picture.maxY < size.height - 0.01 {
            let top = max(0, picture.maxY - under)
            bands.append(Rect(x: 0, y: top, width: size.width, height: size.height - top))
        }
        if picture.minX > 0.01 { bands.append(Rect(x: 0, y: 0, width: min(size.width, picture.minX + under), height: size.height)) }
        if picture.maxX < size.width - 0.01 {
            let left = max(0, picture.maxX - under)
            bands.append(Rect(x: left, y: 0, width: size.width - left, height: size.height))
        }
        return bands
    }
}
