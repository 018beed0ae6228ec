import CSegueKernels

/// EXIF orientation (tag 0x0112): how a stored picture must be turned to be seen upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// True for the orientations that swap width and height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// For a point (x, y) of the upright picture, the point of the stored picture of `width`
    /// x `height` it comes from: the one mapping every other use of the orientation reads.
    func storedPoint(x: Double, y: Double, width: Double, height: Double) -> (x: Double, y: Double) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (width - x, y)
        case .down: return (width - x, height - y)
        case .downMirrored: return (x, height - y)
        case .leftMirrored: return (y, x)                   // transpose
        case .right: return (y, height - x)                 // stored turned 90° counterclockwise
        case .rightMirrored: return (width - y, height - x) // transverse
        case .left: return (width - y, x)                   // stored turned 90° clockwise
        }
    }

    /// For an upright pixel (x, y), the stored pixel it comes from, in a stored image of
    /// `width` x `height`: the one whose center its center maps to.
    func source(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let point = storedPoint(x: Double(x) + 0.5, y: Double(y) + 0.5, width: Double(width), height: Double(height))
        return (Int(point.x.rounded(.down)), Int(point.y.rounded(.down)))
    }

    /// The rectangle of a stored picture of `width` x `height` that shows as `rect` once turned upright.
    func storedRect(of rect: Rect, width: Double, height: Double) -> Rect {
        let a = storedPoint(x: rect.minX, y: rect.minY, width: width, height: height)
        let b = storedPoint(x: rect.maxX, y: rect.maxY, width: width, height: height)
        return Rect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
    }
}

extension Image {
    /// The image turned upright according to its EXIF orientation.
    public func oriented(_ orientation: Orientation) -> Image {
        if orientation == .up { return self }
        let w = orientation.swapsAxes ? height : width
        let h = orientation.swapsAxes ? width : height
        let out = [UInt32](unsafeUninitializedCapacity: w * h) { buffer, initialized in
            orientation.turn(pixels, width: width, height: height, into: buffer.baseAddress!)
            initialized = w * h
        }
        return Image(width: w, height: h, pixels: out, isOpaque: isOpaque)
    }
}

extension Orientation {
    /// Writes the stored picture `pixels` (`width` x `height`) turned upright into `upright`
    /// (room for as many pixels, its rows as wide as the upright picture).
    func turn(_ pixels: [UInt32], width: Int, height: Int, into upright: UnsafeMutablePointer<UInt32>) {
        precondition(pixels.count >= width * height)
        // The stored pixel's index is affine in the upright one's x and y.
        func index(_ x: Int, _ y: Int) -> Int {
            let s = source(x: x, y: y, width: width, height: height)
            return s.y * width + s.x
        }
        let start = index(0, 0)
        pixels.withUnsafeBufferPointer { stored in
            segue_turn(stored.baseAddress!, start, index(1, 0) - start, index(0, 1) - start, upright,
                       Int32(swapsAxes ? height : width), Int32(swapsAxes ? width : height))
        }
    }
}
