import Foundation
@_exported import SegueTestSupport
import Synchronization
import Testing
@testable import Segue

extension Trait where Self == ConditionTrait {
    /// Runs only in the whole suite (`scripts/test`), not in `scripts/test --fast`: `needs`
    /// names the whole suite's reference the test needs (docs/testing.md lists them).
    static func wholeSuite(_ needs: String) -> Self { .enabled(if: !Tier.fast, Comment(rawValue: Tier.wholeSuiteOnly(needs))) }
}

/// An image of `width` x `height` whose pixels come from `color(x, y)` (opaque RGB bytes).
func makeImage(width: Int, height: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Image {
    var pixels: [UInt32] = []
    for y in 0..<height {
        for x in 0..<width {
            let (r, g, b) = color(x, y)
            pixels.append(UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | 0xFF00_0000)
        }
    }
    return Image(width: width, height: height, pixels: pixels)
}

/// The RGBA bytes of a frame.
func bytes(_ frame: FrameBuffer) -> [UInt8] { frame.bytes }

func red(_ p: UInt32) -> Int { Int(p & 0xFF) }
func green(_ p: UInt32) -> Int { Int((p >> 8) & 0xFF) }
func blue(_ p: UInt32) -> Int { Int((p >> 16) & 0xFF) }
func alpha(_ p: UInt32) -> Int { Int(p >> 24) }

/// Two full-screen pages of solid, different colors, laid out in `bounds`.
func colorPages(_ bounds: Rect) -> (Layer, Layer) {
    var a = Layer(frame: bounds), b = Layer(frame: bounds)
    a.contents = picture(Image(width: 8, height: 8, color: Color(red: 1, green: 0, blue: 0)))
    b.contents = picture(Image(width: 8, height: 8, color: Color(red: 0, green: 0, blue: 1)))
    a.contentsGravity = .stretch
    b.contentsGravity = .stretch
    a.name = "from"
    b.name = "to"
    return (a, b)
}

func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

/// Images the tests show, by source number: a test's layer shows an image through
/// `picture(_:)`, and renders through the cache over all of them.
enum TestPictures {
    static let images = Locked<[Image]>([])
    static let cache = PictureCache { index in images.withLock { $0[index] } }

    static func add(_ image: Image) -> Contents {
        images.withLock { images in
            images.append(image)
            return .picture(Picture(source: images.count - 1, size: image.size))
        }
    }
}

/// A reference to `image` for a layer's contents.
func picture(_ image: Image) -> Contents { TestPictures.add(image) }

extension Compositor {
    /// Renders a test's scene, its pictures resolved among those the tests made.
    func render(_ root: Layer, canvas: Canvas) -> FrameBuffer {
        try! render(root, canvas: canvas, pictures: TestPictures.cache)
    }
}

extension Layer {
    /// The draw list of a test's scene.
    func drawList(scale: Double) -> [DrawItem] {
        try! drawList(scale: scale, pictures: TestPictures.cache)
    }
}
