/// EXIF orientation (tag 0x0112): how a stored picture must be turned to be seen upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// True for the orientations that swap width and height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// For an upright pixel (x, y), the stored pixel it comes from, in a stored image of
    /// `width` x `height`.
    func source(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (width - 1 - x, y)
        case .down: return (width - 1 - x, height - 1 - y)
        case .downMirrored: return (x, height - 1 - y)
        case .leftMirrored: return (y, x)                          // transpose
        case .right: return (y, height - 1 - x)                    // stored turned 90° counterclockwise
        case .rightMirrored: return (width - 1 - y, height - 1 - x) // transverse
        case .left: return (width - 1 - y, x)                      // stored turned 90° clockwise
        }
    }
}

extension Image {
    /// The image turned upright according to its EXIF orientation.
    public func oriented(_ orientation: Orientation) -> Image {
        if orientation == .up { return self }
        let w = orientation.swapsAxes ? height : width
        let h = orientation.swapsAxes ? width : height
        var out = [UInt32](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    let s = orientation.source(x: x, y: y, width: width, height: height)
                    out[y * w + x] = src[s.y * width + s.x]
                }
            }
        }
        return Image(width: w, height: h, pixels: out, isOpaque: isOpaque)
    }
}
