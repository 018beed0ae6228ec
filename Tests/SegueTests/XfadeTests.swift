import Foundation
import Testing
@testable import Segue

/// Every transition ported from FFmpeg's xfade, against xfade itself (FFmpeg's newest
/// release, `ReferenceTools`): the same two photos at the canvas's size, a linear curve,
/// 16 frames of transition; each frame strictly inside it (xfade's first shows a line of the
/// incoming page in some wipes, where Segue's progress 0 is the outgoing page, whole).
@Suite("FFmpeg xfade's transitions against xfade")
struct XfadeTests {
    /// xfade's names: a transition of Segue's or an alias of one.
    static let names = [
        "fade", "wipeleft", "wiperight", "wipeup", "wipedown", "slideleft", "slideright", "slideup", "slidedown",
        "circlecrop", "rectcrop", "distance", "fadeblack", "fadewhite", "radial", "smoothleft", "smoothright", "smoothup",
        "smoothdown", "circleopen", "circleclose", "vertopen", "vertclose", "horzopen", "horzclose", "dissolve", "pixelize",
        "diagtl", "diagtr", "diagbl", "diagbr", "hlslice", "hrslice", "vuslice", "vdslice", "hblur", "fadegrays",
        "wipetl", "wipetr", "wipebl", "wipebr", "squeezeh", "squeezev", "zoomin", "fadefast", "fadeslow",
        "hlwind", "hrwind", "vuwind", "vdwind", "coverleft", "coverright", "coverup", "coverdown",
        "revealleft", "revealright", "revealup", "revealdown",
    ]
    static let width = 384, height = 256

    /// Two photos at the canvas's size, so that nothing is scaled; 384 and 256 are multiples
    /// of the 16 frames, so every slide's offset is a whole number of pixels, as xfade's are.
    static let stills = Result<(String, String), Error> {
        let folder = temporaryFolder()
        let size = "scale=\(width):\(height),format=rgb24"
        return (try ffmpegMake("a.png", ["-i", example("a.jpg"), "-vf", size], in: folder),
                try ffmpegMake("b.png", ["-i", example("b.png"), "-vf", size], in: folder))
    }

    @Test("xfade's 58 names are all Segue's, each a transition or an alias of one")
    func everyName() {
        #expect(Self.names.count == 58 && Set(Self.names).count == 58)
        #expect(Self.names.filter { TransitionRegistry.resolve($0) == nil }.isEmpty)
    }

    @Test("each frame inside the transition is xfade's: 99 % of pixels within 2/255 of it, PSNR at least 35 dB",
          .wholeSuite("FFmpeg 7's xfade (imageio-ffmpeg)"), arguments: names)
    func matchesXfade(name: String) throws {
        let (a, b) = try Self.stills.get()
        let folder = temporaryFolder()
        let preset = try Preset.load(repositoryRoot.appendingPathComponent("Presets/crossfade.yaml").path, overrides: PresetPatch(overrides: [
            "transition.kind=\(name)", "transition.curve=linear", "transition.duration=1", "hold=0.5",
            "canvas.size=[\(Self.width), \(Self.height)]", "canvas.scale=1", "fps=16",
        ]))
        let frames = folder.appendingPathComponent("frames").path
        try Exporter.run(try Job(preset: preset, inputs: [a, b], output: frames, threads: 2))
        let ours = try files(in: frames).map { try Image.decode(path: frames + "/" + $0) }
        let raw = folder.appendingPathComponent("xfade.rgba").path
        try succeed(try ReferenceTools.newestFFmpeg(), [
            "-v", "error", "-y", "-loop", "1", "-framerate", "16", "-t", "1.5", "-i", a, "-loop", "1", "-framerate", "16", "-t", "1.5", "-i", b,
            "-filter_complex", "[0]format=gbrp[a];[1]format=gbrp[b];[a][b]xfade=transition=\(name):duration=1:offset=0.5,format=rgba",
            "-f", "rawvideo", raw,
        ])
        let theirs = try Data(contentsOf: URL(fileURLWithPath: raw))
        let pixels = Self.width * Self.height
        try #require(ours.count == 32 && theirs.count == 32 * pixels * 4, "\(ours.count) frames, xfade \(theirs.count / (pixels * 4))")
        for frame in 9..<24 {
            var within = 0, squares = 0.0
            theirs.withUnsafeBytes { bytes in
                let reference = bytes.baseAddress!.advanced(by: frame * pixels * 4).assumingMemoryBound(to: UInt8.self)
                for i in 0..<pixels {
                    let p = ours[frame].pixels[i]
                    var largest = 0
                    for c in 0..<3 {
                        let d = Int(p >> (8 * UInt32(c)) & 255) - Int(reference[i * 4 + c])
                        largest = max(largest, abs(d))
                        squares += Double(d * d)
                    }
                    if largest <= 2 { within += 1 }
                }
            }
            let share = Double(within) / Double(pixels)
            let psnr = squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(pixels * 3)))
            #expect(share >= 0.99 && psnr >= 35, "\(name), frame \(frame): \(String(format: "%.2f", share * 100)) % within 2/255, PSNR \(String(format: "%.1f", psnr)) dB")
        }
    }
}
