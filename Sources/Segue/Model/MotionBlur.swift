import Foundation

/// Motion blur, as a film camera's shutter makes it: a frame at time t is the mean of the
/// unblurred frames over the shutter window centred on t, `shutter / 360` of the frame
/// interval wide (180: half of it, film's usual shutter; 360: all of it).
///
/// The window is sampled at `samples` times evenly spread over it (the first and last half a
/// step in from its ends). Left to itself (`samples` nil) the count is one more than keeps every
/// pixel's step between two samples under a pixel, from how far the frame's layers move over
/// the window and from the motion bound its transition declares (`MotionBound`), at most
/// `autoLimit`; a frame where nothing moves takes one sample, and is the unblurred frame.
public struct MotionBlur: Equatable, Hashable, Sendable {
    /// The shutter angle in degrees: 0 (no blur) to 360 (the whole frame interval).
    public var shutter: Double
    /// The samples a blurred frame is the mean of; nil: as many as its motion needs.
    public var samples: Int?

    public init(shutter: Double = 0, samples: Int? = nil) {
        self.shutter = shutter
        self.samples = samples
    }

    /// No blur.
    public static let off = MotionBlur()
    /// The most samples `samples: auto` takes for one frame.
    public static let autoLimit = 64
    /// The most samples a frame may be asked to take (a frame's sums stay in 16 bits).
    public static let sampleRange = 1...256

    public var isOff: Bool { shutter == 0 || samples == 1 }

    /// The window's width in seconds at `fps`.
    public func window(fps: FrameRate) -> Double { shutter / 360 / fps.value }

    /// How many samples a frame takes whose pixels move at most `pixels` over the window.
    public func sampleCount(moving pixels: Double) -> Int {
        guard !isOff, pixels > 0 else { return 1 }
        if let samples { return samples }
        // One more than the steps under a pixel: the window's ends are half a step from the
        // samples, so a frame that moves under a pixel (a transition's last moment, reached
        // by a hold's window) still sees both of them.
        return min(MotionBlur.autoLimit, Int(pixels.rounded(.up)) + 1)
    }

    /// The offsets of `count` sample times from the window's centre, in seconds, for a
    /// window `width` seconds wide: `0` alone for one sample.
    public static func offsets(_ count: Int, width: Double) -> [Double] {
        (0..<count).map { (Double($0) + 0.5) / Double(count) * width - width / 2 }
    }

    /// `180`, or `{shutter: 180, samples: 8}`.
    public var description: String {
        samples.map { "{shutter: \(format(shutter)), samples: \($0)}" } ?? format(shutter)
    }
}

extension MotionBlur {
    /// What `motionBlur` accepts, in errors and in the reference.
    static let expected = "a shutter angle in degrees (0...360), or {shutter: 0...360, samples: auto or 1...256}"

    /// Reads `motionBlur` from `r` (a shutter angle, or a mapping of `shutter` and `samples`),
    /// `base` when it is not given.
    static func read(_ r: inout ConfigReader, default base: MotionBlur) throws -> MotionBlur {
        guard let node = r.raw("motionBlur", type: "number or mapping", default: base.description,
                               "Motion blur: a shutter angle in degrees (0 off, 180 film's, 360 the whole frame), or {shutter, samples}.") else { return base }
        let key = r.fullKey("motionBlur")
        if case .scalar = node.value {
            let shutter = try ConfigReader.number(node, key: key)
            guard (0...360).contains(shutter) else {
                throw PresetError.outOfRange(key: key, origin: node.origin, value: format(shutter), range: "0...360")
            }
            return MotionBlur(shutter: shutter, samples: nil)
        }
        var m = try ConfigReader(node, path: key)
        let shutter = try m.number("shutter", default: 180, in: 0...360, "The shutter angle in degrees.")
        let written = try m.parsed("samples", default: "auto", type: "text or number", expected: "auto or a whole number in 1...256",
                                   "Samples a blurred frame is the mean of: auto (as many as keep each pixel's step under a pixel, at most 64) or a count.") { text -> String? in
            text == "auto" || Int(text).map(MotionBlur.sampleRange.contains) == true ? text : nil
        }
        try m.finish()
        return MotionBlur(shutter: shutter, samples: written == "auto" ? nil : Int(written))
    }
}

/// How far a transition moves pixels beyond what its layers show, per unit of progress: what
/// motion blur's `samples: auto` counts from (`Transition.motionBound`).
public enum MotionBound: Equatable, Sendable {
    /// Pixels move only as its layers move (pages: cubes, flips, slides), measured from them,
    /// or not at all (mixes: fades, dissolves).
    case layers
    /// Its pixels move up to this many points per unit of progress (a wipe's edge, a
    /// squeeze's stretch), besides its layers' motion.
    case points(Double)
    /// It cannot say (a shader's pixels): a fixed count of samples whenever it moves.
    case samples(Int)
}
