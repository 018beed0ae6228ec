import Foundation
import Testing
@testable import Segue

/// Every transition that mixes two pages pixel by pixel, pinned: the frames it draws from two
/// photos at progress 0.1 … 0.9, on the portrait canvas the GLSL comparison uses and on a small
/// odd one (a row's tail past every vector width), each frame's hash against
/// `Golden/pixel-transitions.pins`. A rewrite of a port or of a kernel that is meant to change
/// nothing must leave every line as it is; one that is meant to change frames says which in
/// its commit, with the file written again (`SEGUE_RECORD_PINS=1` writes it and fails).
@Suite("Every pixel transition's frames, pinned")
struct TransitionPinsTests {
    static let pins = repositoryRoot.appendingPathComponent("Tests/SegueTests/Golden/pixel-transitions.pins")
    static let sizes = [(GLTransitionTests.width, GLTransitionTests.height), (75, 43)]

    /// The transitions pinned, by name: each pixel transition of the catalogue that draws
    /// without a file, with its parameters' defaults, and the ports with other parameters
    /// that the GLSL comparison also draws.
    static var transitions: [(name: String, mixer: any PixelMixer)] {
        // A loop, not filter and map over the metatypes: Swift 6.3's SIL generation crashes on those.
        var found: [(name: String, mixer: any PixelMixer)] = []
        for kind in TransitionRegistry.catalogue where ObjectIdentifier(kind) != ObjectIdentifier(GLSLTransition.self) {
            if let mixer = kind.init() as? any PixelMixer { found.append((kind.name, mixer)) }
        }
        for v in GLTransitionTests.variants { found.append(("gl:\(v.file) \(v.uniforms.joined(separator: " "))", v.port)) }
        return found
    }

    /// FNV-1a, 64 bits, of the frame's bytes.
    static func hash(_ pixels: [UInt32]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for p in pixels {
            for shift in stride(from: 0, to: 32, by: 8) { h = (h ^ UInt64(p >> UInt32(shift) & 255)) &* 0x100_0000_01b3 }
        }
        return String(h, radix: 16)
    }

    /// The lines of the pins file as the code draws them now: kind, size, progress, hash.
    static func lines() throws -> [String] {
        let (_, (a, b)) = try GLTransitionTests.stills.get()
        var lines: [String] = []
        for (width, height) in sizes {
            // The stills cut to the small canvas: its top left corner.
            let cut = { (p: [UInt32]) in (0..<height).flatMap { y in p[(y * GLTransitionTests.width)..<(y * GLTransitionTests.width + width)] } }
            let (a, b) = width == GLTransitionTests.width ? (a, b) : (cut(a), cut(b))
            for (name, mixer) in transitions {
                for progress in GLTransitionTests.progresses {
                    let frame = GLTransitionTests.frame(mixer, progress: progress, a: a, b: b, width: width, height: height)
                    lines.append("\(name) \(width)x\(height) \(progress) \(hash(frame))")
                }
            }
        }
        return lines
    }

    @Test("each frame of every pixel transition, on two canvases, is the frame pinned")
    func framesArePinned() throws {
        let now = try Self.lines()
        if ProcessInfo.processInfo.environment["SEGUE_RECORD_PINS"] == "1" {
            try (now.joined(separator: "\n") + "\n").write(to: Self.pins, atomically: true, encoding: .utf8)
            Issue.record("recorded \(now.count) pins in \(Self.pins.path): commit them, and run again without SEGUE_RECORD_PINS")
            return
        }
        let pinned = try String(contentsOf: Self.pins, encoding: .utf8).split(separator: "\n").map(String.init)
        let changed = zip(pinned, now).filter { $0 != $1 }.map { "\($0.1) (pinned \($0.0.split(separator: " ").last ?? ""))" }
        #expect(pinned.count == now.count, "\(pinned.count) pins, \(now.count) frames")
        #expect(changed.isEmpty, "\(changed.count) frames changed, among them:\n\(changed.prefix(20).joined(separator: "\n"))")
    }
}
