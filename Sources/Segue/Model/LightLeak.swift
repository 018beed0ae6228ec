import Foundation

/// A procedural light leak: soft coloured glows and a flare streak drifting across the frame,
/// as film's leaks look, drawn at the canvas's size (from a picture an eighth of it: nothing
/// in it is sharper) for every moment it shows, the same for the same `seed`. It is laid over
/// the story by `screen` unless the overlay says otherwise: black adds nothing, so the picture
/// is opaque and its light is its colour.
///
/// Three glows (gaussian falloffs, each a palette colour) start at seeded places and drift
/// along seeded straight paths; a streak (a soft band across the frame, tilted by a seeded
/// angle) sweeps through once. The light rises and falls over the leak's time as sin(π u),
/// u from 0 to 1, times `intensity`.
public struct LightLeak: Hashable, Sendable {
    public enum Palette: String, CaseIterable, Sendable {
        case warm, cool, gold, rose, white

        /// Its three glows' colours (linear 0...1 per channel, before the light's strength).
        var colors: [(Double, Double, Double)] {
            switch self {
            case .warm: [(1, 0.45, 0.1), (1, 0.2, 0.05), (1, 0.8, 0.3)]
            case .cool: [(0.2, 0.5, 1), (0.5, 0.2, 1), (0.2, 0.9, 1)]
            case .gold: [(1, 0.75, 0.25), (1, 0.6, 0.1), (1, 0.9, 0.6)]
            case .rose: [(1, 0.3, 0.5), (1, 0.5, 0.6), (0.9, 0.2, 0.8)]
            case .white: [(1, 1, 1), (1, 0.95, 0.9), (0.9, 0.95, 1)]
            }
        }
    }

    public var seed = 1
    public var palette = Palette.warm
    public var intensity = 0.8

    public init(seed: Int = 1, palette: Palette = .warm, intensity: Double = 0.8) {
        self.seed = seed
        self.palette = palette
        self.intensity = intensity
    }

    /// How much smaller than the canvas its picture is made.
    static let reduction = 8

    /// The size its picture is made at for a canvas `width` x `height` pixels.
    static func pictureSize(width: Int, height: Int) -> (width: Int, height: Int) {
        (max(2, (width + reduction - 1) / reduction), max(2, (height + reduction - 1) / reduction))
    }

    /// Its picture `u` of the way through its time (0...1), `width` x `height` pixels.
    public func picture(at u: Double, width: Int, height: Int) -> Image {
        let seed = UInt64(self.seed)
        func random(_ k: UInt64) -> Double { Seeded.unit(k, seed) }
        let strength = intensity * sin(Double.pi * min(max(u, 0), 1))
        let aspect = Double(height) / Double(width)
        // Glows: centre, drift, radius (in widths), colour.
        let glows = palette.colors.enumerated().map { k, color -> (x: Double, y: Double, r: Double, color: (Double, Double, Double)) in
            let k = UInt64(k) * 8
            let x0 = random(k) * 1.2 - 0.1, y0 = (random(k + 1) * 1.2 - 0.1) * aspect
            let dx = (random(k + 2) - 0.5) * 0.8, dy = (random(k + 3) - 0.5) * 0.8 * aspect
            return (x0 + dx * u, y0 + dy * u, 0.35 + 0.5 * random(k + 4), color)
        }
        // The streak: a band through a point that sweeps across, at a seeded tilt.
        let angle = (random(40) - 0.5) * 1.2, nx = cos(angle), ny = sin(angle)
        let sweep = -0.3 + 1.6 * u, thickness = 0.12 + 0.1 * random(41)
        let streak = palette.colors[Int(random(42) * 3) % 3]
        var pixels = [UInt32](repeating: 0xFF00_0000, count: width * height)
        for py in 0..<height {
            let y = (Double(py) + 0.5) / Double(width)
            for px in 0..<width {
                let x = (Double(px) + 0.5) / Double(width)
                var light = (0.0, 0.0, 0.0)
                for glow in glows {
                    let d2 = ((x - glow.x) * (x - glow.x) + (y - glow.y) * (y - glow.y)) / (glow.r * glow.r)
                    let w = exp(-2 * d2)
                    light = (light.0 + w * glow.color.0, light.1 + w * glow.color.1, light.2 + w * glow.color.2)
                }
                let along = (x * nx + y / aspect * ny) - sweep
                let s = 0.8 * exp(-(along * along) / (thickness * thickness))
                light = (light.0 + s * streak.0, light.1 + s * streak.1, light.2 + s * streak.2)
                func byte(_ v: Double) -> UInt32 { UInt32(min(max(v * strength, 0), 1) * 255 + 0.5) }
                pixels[py * width + px] = byte(light.0) | byte(light.1) << 8 | byte(light.2) << 16 | 0xFF00_0000
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }
}
