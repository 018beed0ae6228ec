import Foundation
import Testing
@testable import Segue

/// Every gl-transitions port against its GLSL file, run by Mesa's llvmpipe on the CPU
/// (`Tests/Reference/glsl.py`, moderngl through EGL): the same two photos, a portrait canvas
/// (so that `ratio` counts), progress 0.1 … 0.9, each frame at least 35 dB PSNR. The GLSL
/// files are gl-transitions' own (`Tests/Reference/gl-transitions`, unchanged).
///
/// Transitions built on the shaders' sine hash (`wind`, `randomsquares`, `CrossZoom`, `FilmBurn`)
/// compute it as the file does, in single precision; but llvmpipe's sine is not glibc's (nor
/// any GPU's another's), and the hash multiplies its last bits by 43758: a third of `wind`'s
/// rows get another random number (measured: 127 of 384 off by more than 0.02), so its
/// front is as ragged but not the same. For `wind` the structure is compared, not the noise:
/// each column averaged over the rows (where the front stands across the screen), at the
/// same 35 dB. `randomsquares` draws one number a square (a hundred in all), and the jitter of
/// `CrossZoom` and `FilmBurn` averages out over their samples: those hold 35 dB pixel by pixel.
@Suite("gl-transitions ports against the GLSL run by llvmpipe")
struct GLTransitionTests {
    static let names = TransitionRegistry.gl.map { $0.file }
    static let width = 256, height = 384
    static let progresses: [Double] = (1...9).map { Double($0) / 10 }

    /// Two photos at the canvas's size as RGBA files for the reference and as pixels for Segue.
    static let stills = Result<(files: (String, String), pixels: ([UInt32], [UInt32])), Error> {
        let folder = temporaryFolder()
        func still(_ name: String, _ source: String) throws -> (String, [UInt32]) {
            let path = folder.appendingPathComponent(name).path
            try succeed("ffmpeg", ["-v", "error", "-y", "-i", example(source), "-vf", "scale=\(width):\(height),format=rgba", "-f", "rawvideo", path])
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return (path, data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) })
        }
        let (a, b) = (try still("a.rgba", "a.jpg"), try still("b.rgba", "b.png"))
        return ((a.0, b.0), (a.1, b.1))
    }

    /// The frame `transition` writes at `progress` from the two stills.
    static func frame(_ transition: any PixelMixer, progress: Double, a: [UInt32], b: [UInt32], width: Int = width,
                      height: Int = height) -> [UInt32] {
        let rows = transition.rows(progress: progress, width: width, height: height)
        var out = [UInt32](repeating: 0, count: width * height)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { out in
                    // As the compositor hands them: mixed once where the transition reads them so.
                    let raw = PagePictures(a: a.baseAddress!, b: b.baseAddress!, width: width, height: height)
                    let (pages, mixed) = transition.premix(progress: progress).map {
                        raw.premixed($0, threads: 2) { FrameBuffer(width: width, height: height) }
                    } ?? (raw, nil)
                    withExtendedLifetime(mixed) {
                        for y in 0..<height { rows(y, pages, out.baseAddress! + y * width) }
                    }
                }
            }
        }
        return out
    }

    /// Transitions whose rows differ by pseudo-random numbers alone: compared column by column.
    static let randomRows: Set<String> = ["wind"]

    /// The peak signal-to-noise ratio of the colour channels of two RGBA frames, pixel by
    /// pixel, or of their columns' means over the rows when `columns`.
    static func psnr(_ ours: [UInt32], _ theirs: UnsafePointer<UInt8>, columns: Bool) -> Double {
        let count = columns ? width : ours.count
        var a = [Double](repeating: 0, count: count * 3), b = a
        for i in 0..<ours.count {
            let k = columns ? i % width : i
            for c in 0..<3 {
                a[k * 3 + c] += Double(ours[i] >> (8 * UInt32(c)) & 255)
                b[k * 3 + c] += Double(theirs[i * 4 + c])
            }
        }
        let n = columns ? Double(height) : 1
        let squares = zip(a, b).reduce(0.0) { $0 + ($1.0 / n - $1.1 / n) * ($1.0 / n - $1.1 / n) }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(count * 3)))
    }

    @Test("at least 20 of gl-transitions' files are ported, each named gl: and its file's name in any case, and by the file's name alone where it is free")
    func naming() {
        #expect(Self.names.count >= 20)
        for port in TransitionRegistry.gl {
            #expect(TransitionRegistry.resolve("gl:" + port.file)?.kind == port)
            #expect(TransitionRegistry.resolve("GL:" + port.file.uppercased())?.kind == port)
            #expect(FileManager.default.fileExists(atPath: Self.glsl(port.file)), "\(port.file).glsl is not among the reference files")
        }
        #expect(TransitionRegistry.resolve("crosswarp")?.kind == GLCrosswarp.self)
        #expect(TransitionRegistry.resolve("InvertedPageCurl")?.kind == GLInvertedPageCurl.self)
        #expect(TransitionRegistry.resolve("dissolve")?.kind == Dissolve.self, "xfade's dissolve keeps its name")
        #expect(TransitionRegistry.resolve("wind")?.kind == Wind.self, "xfade's wind keeps its name")
        #expect(TransitionRegistry.names.count >= 85)
    }

    /// The frames of gl-transitions' `file` at each of `progresses` from the two stills, as the
    /// test's harness draws them (moderngl on llvmpipe): RGBA, one after the other.
    /// `uniforms` set as glsl.py takes them (NAME=VALUE), the file's defaults for the rest.
    static func reference(_ file: String, uniforms: [String] = []) throws -> Data {
        let ((a, b), _) = try stills.get()
        let out = temporaryFolder().appendingPathComponent("gl.rgba").path
        try succeed(try ReferenceTools.pythonWithGL(), [
            repositoryRoot.appendingPathComponent("Tests/Reference/glsl.py").path, glsl(file), a, b, "\(width)", "\(height)", out,
            progresses.map { "\($0)" }.joined(separator: ","),
        ] + uniforms)
        let frames = try Data(contentsOf: URL(fileURLWithPath: out))
        try #require(frames.count == progresses.count * width * height * 4)
        return frames
    }

    static func glsl(_ file: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/Reference/gl-transitions/\(file).glsl").path
    }

    /// Ports with parameters other than their defaults: the file, its uniforms so set (as
    /// glsl.py takes them) and the port so set. Those whose math is in C each have one or two.
    static let variants: [(file: String, uniforms: [String], port: any GLTransition)] = [
        ("ripple", ["amplitude=30", "speed=-20"], GLRipple().with(GLRipple.amplitude, 30).with(GLRipple.speed, -20)),
        ("directionalwarp", ["direction=1,0.3", "smoothness=0.5"],
         GLDirectionalWarp().with(GLDirectionalWarp.direction, [1, 0.3]).with(GLDirectionalWarp.smoothness, 0.5)),
        ("directionalwarp", ["smoothness=0"], GLDirectionalWarp().with(GLDirectionalWarp.smoothness, 0)),
        ("rotate_scale_fade", ["center=0.3,0.6", "rotations=-2", "scale=3"],
         GLRotateScaleFade().with(GLRotateScaleFade.center, [0.3, 0.6]).with(GLRotateScaleFade.rotations, -2).with(GLRotateScaleFade.scale, 3)),
        ("kaleidoscope", ["speed=-3", "angle=2.5"], GLKaleidoscope().with(GLKaleidoscope.speed, -3).with(GLKaleidoscope.angle, 2.5)),
        ("swap", ["reflection=0.7", "perspective=0.5", "depth=2"],
         GLSwap().with(GLSwap.reflection, 0.7).with(GLSwap.perspective, 0.5).with(GLSwap.depth, 2)),
        ("doorway", ["reflection=0.2", "perspective=0.8", "depth=5"],
         GLDoorway().with(GLDoorway.reflection, 0.2).with(GLDoorway.perspective, 0.8).with(GLDoorway.depth, 5)),
        ("dissolve", ["uLineWidth=0.3", "uPow=2", "uIntensity=1.5"],
         GLDissolve().with(GLDissolve.lineWidth, 0.3).with(GLDissolve.power, 2).with(GLDissolve.intensity, 1.5)),
        ("CrossZoom", ["strength=0.8"], GLCrossZoom().with(GLCrossZoom.strength, 0.8)),
        // Not FilmBurn with another seed: its flares are placed by the sine hash, whose last
        // bits llvmpipe's sine does not share (Seed=7.5 moves a flare: 30 dB at 0.6).
    ]

    @Test("each frame from 0.1 to 0.9 is the GLSL's, as llvmpipe draws it: PSNR at least 35 dB",
          .wholeSuite("the GLSL files run by llvmpipe through moderngl"), arguments: names)
    func matchesGLSL(file: String) throws {
        let port = try #require(TransitionRegistry.gl.first { $0.file == file })
        try Self.compare(port.init(), file: file)
    }

    @Test("with parameters other than their defaults, each port in C is the GLSL with the same uniforms: PSNR at least 35 dB",
          .wholeSuite("the GLSL files run by llvmpipe through moderngl"), arguments: variants.indices)
    func matchesGLSLWithParameters(variant: Int) throws {
        let (file, uniforms, port) = Self.variants[variant]
        try Self.compare(port, file: file, uniforms: uniforms)
    }

    /// Each frame of `port` against the file's with `uniforms`, as llvmpipe draws it.
    static func compare(_ port: any GLTransition, file: String, uniforms: [String] = []) throws {
        let (_, (pixelsA, pixelsB)) = try Self.stills.get()
        let theirs = try Self.reference(file, uniforms: uniforms)
        let size = Self.width * Self.height * 4
        for (k, progress) in Self.progresses.enumerated() {
            let ours = Self.frame(port, progress: progress, a: pixelsA, b: pixelsB)
            let columns = Self.randomRows.contains(file)
            let psnr = theirs.withUnsafeBytes {
                Self.psnr(ours, $0.baseAddress!.advanced(by: k * size).assumingMemoryBound(to: UInt8.self), columns: columns)
            }
            #expect(psnr >= 35, "gl:\(file) \(uniforms.joined(separator: " ")) at \(progress): PSNR \(String(format: "%.1f", psnr)) dB\(columns ? " (columns' means)" : "")")
        }
    }
}
