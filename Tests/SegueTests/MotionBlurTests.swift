import Foundation
import Testing
import CSegueKernels
@testable import Segue

/// Motion blur against its definition: a blurred frame is the mean of the unblurred frames
/// over its shutter window. The reference is the same story unblurred at 64 times the frame
/// rate, its frames averaged over each window (the trapezoid rule over 64 × shutter / 360
/// intervals); the blurred frames must be within PSNR 40 dB of it.
@Suite("Motion blur: the mean of the unblurred frames over the shutter window")
struct MotionBlurTests {
    static let fps = 3

    func job(_ cut: String, blur: String?, fps: Int = MotionBlurTests.fps, extra: String = "") throws -> Job {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        let blurKey = blur.map { ", motionBlur: \($0)" } ?? ""
        let yaml = """
            preset: stories-cube
            set: {fps: \(fps)}
            slides:
              - {image: a.jpg, hold: 1, transition: {kind: \(cut), duration: 2, curve: easeInEaseOut\(blurKey)\(extra)}}
              - {image: b.png, hold: 1}
            """
        let path = folder.appendingPathComponent("story.yaml")
        try yaml.write(to: path, atomically: true, encoding: .utf8)
        let story = try Story.load(path.path)
        let preset = try Preset.load(story.preset ?? "stories-cube", overrides: PresetPatch(overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25"]),
                                     underlying: story.settings)
        return try Job(preset: preset, slides: story.slides, output: folder.appendingPathComponent("out.framemd5").path)
    }

    /// Frame `index` as the export draws it, on `threads` threads, and how many samples it took.
    func frame(_ frames: PreparedFrames, _ index: Int, threads: Int = 1) throws -> (pixels: [UInt32], samples: Int) {
        let board = frames.storyboard
        let plan = frames.resources.plan(index, of: board)
        let images = try frames.resources.images(for: plan, threads: 1)
        let out = FrameBuffer(width: board.canvas.width, height: board.canvas.height)
        Compositor(threads: threads).render(meanOf: plan.drawLists(scale: board.canvas.scale, images: images), canvas: board.canvas, into: out)
        return (Array(UnsafeBufferPointer(start: out.pixels, count: out.width * out.height)), max(1, plan.samples.count))
    }

    func psnr(_ a: [UInt32], _ b: [Double]) -> Double {
        var sum = 0.0
        for i in a.indices {
            for c in 0..<4 {
                let d = Double((a[i] >> (8 * UInt32(c))) & 255) - b[4 * i + c]
                sum += d * d
            }
        }
        let mse = sum / Double(a.count * 4)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test("every family within PSNR 40 dB of the 64x-rate mean, two shutters", arguments: [
        "slide", "stories-cube", "flip", "wipe", "circleopen", "gl:Directional", "squeeze",
        "luma, matte: bars", "glsl, file: '\(GLTransitionTests.glsl("crosswarp"))'",
    ], [180.0, 360.0])
    func definition(_ cut: String, shutter: Double) throws {
        let parts = cut.split(separator: ",", maxSplits: 1).map(String.init)
        let extra = parts.count > 1 ? "," + parts[1] : ""
        let blurred = try PreparedFrames(job: job(parts[0], blur: format(shutter), extra: extra))
        let fine = try PreparedFrames(job: job(parts[0], blur: nil, fps: Self.fps * 64, extra: extra))
        let half = Int((32 * shutter / 360).rounded())
        var moved = 0
        // Frames 3...8 are the transition's (1 s hold, 2 s at 3 fps); 2 and 9 its neighbours at rest.
        for index in 2...9 {
            let (pixels, samples) = try frame(blurred, index)
            if samples > 1 { moved += 1 }
            var mean = [Double](repeating: 0, count: pixels.count * 4), weights = 0.0
            for offset in -half...half {
                let weight = abs(offset) == half ? 0.5 : 1
                let (fine, _) = try frame(fine, index * 64 + offset)
                for i in fine.indices {
                    for c in 0..<4 { mean[4 * i + c] += weight * Double((fine[i] >> (8 * UInt32(c))) & 255) }
                }
                weights += weight
            }
            mean = mean.map { $0 / weights }
            let db = psnr(pixels, mean)
            if ProcessInfo.processInfo.environment["SEGUE_BLUR_DEBUG"] != nil { print("BLUR \(cut) \(shutter) frame \(index): \(db) dB, \(samples) samples") }
            #expect(db >= 40, "\(cut) at \(shutter)°, frame \(index): \(db) dB with \(samples) samples")
        }
        #expect(moved >= 4, "\(cut): only \(moved) frames were blurred")
    }

    @Test("frames at rest are the unblurred frames byte for byte: holds, and every frame of a crossfade")
    func atRest() throws {
        for cut in ["slide", "crossfade", "fadeblack"] {
            let plain = try PreparedFrames(job: job(cut, blur: nil))
            let blurred = try PreparedFrames(job: job(cut, blur: "{shutter: 360, samples: 32}"))
            // Frame 9 is a hold's, but its window reaches back into the transition.
            for index in [0, 1, 2, 10, 11] {
                let (a, _) = try frame(plain, index), (b, samples) = try frame(blurred, index)
                #expect(a == b && samples == 1, "\(cut), frame \(index)")
            }
            guard cut != "slide" else { continue }
            for index in 3...8 {
                let (a, _) = try frame(plain, index), (b, samples) = try frame(blurred, index)
                #expect(a == b && samples == 1, "\(cut) mixes without moving: frame \(index)")
            }
        }
    }

    @Test("the same bytes at any thread count")
    func threads() throws {
        let blurred = try PreparedFrames(job: job("stories-cube", blur: "180"))
        for index in 3...9 {
            let one = try frame(blurred, index, threads: 1), three = try frame(blurred, index, threads: 3)
            #expect(one.pixels == three.pixels && (one.samples > 1 || ![4, 5, 6, 7].contains(index)), "frame \(index)")
        }
    }

    @Test("samples: auto keeps each step under a pixel up to its limit; a count is taken as given")
    func sampleCounts() throws {
        #expect(MotionBlur(shutter: 180).sampleCount(moving: 0) == 1)
        #expect(MotionBlur(shutter: 180).sampleCount(moving: 7.2) == 9)
        #expect(MotionBlur(shutter: 180).sampleCount(moving: 1e6) == MotionBlur.autoLimit)
        #expect(MotionBlur(shutter: 180, samples: 5).sampleCount(moving: 100) == 5)
        #expect(MotionBlur(shutter: 0).sampleCount(moving: 100) == 1)
        #expect(MotionBlur.offsets(4, width: 1) == [-0.375, -0.125, 0.125, 0.375])
        // A slide's samples grow with how far the page moves in the window: the wider shutter takes more.
        let narrow = try PreparedFrames(job: job("slide", blur: "90")), wide = try PreparedFrames(job: job("slide", blur: "360"))
        let a = try frame(narrow, 5).samples, b = try frame(wide, 5).samples
        #expect(a > 1 && b > 2 * a - 2 && b <= MotionBlur.autoLimit, "\(a) and \(b) samples")
    }

    @Test("the mean of frames: rounded to nearest for every sum and count, as a division would")
    func meanKernel() {
        for samples in [2, 3, 7, 64, 255, 256] {
            let count = 64
            var sums = [UInt16](repeating: 0, count: count * 4)
            for i in sums.indices { sums[i] = UInt16((i * 977 + samples * 31) % (255 * samples + 1)) }
            var out = [UInt32](repeating: 0, count: count)
            segue_mean(&out, sums, count, Int32(samples))
            for i in 0..<count {
                for c in 0..<4 {
                    let expected = (Int(sums[4 * i + c]) + samples / 2) / samples
                    #expect(Int((out[i] >> (8 * UInt32(c))) & 255) == expected, "\(samples) samples, sum \(sums[4 * i + c])")
                }
            }
        }
    }

    @Test("motionBlur is read from a cut, a preset's transition and a motion, and refused out of range")
    func reading() throws {
        let preset = try Preset.load("slide", overrides: PresetPatch(overrides: ["transition.motionBlur=270", "motion.motionBlur={shutter: 90, samples: 4}"]))
        #expect(preset.transition.motionBlur == MotionBlur(shutter: 270) && preset.motion.motionBlur == MotionBlur(shutter: 90, samples: 4))
        #expect(throws: PresetError.self) { try Preset.load("slide", overrides: PresetPatch(overrides: ["transition.motionBlur=400"])) }
        #expect(throws: PresetError.self) { try Preset.load("slide", overrides: PresetPatch(overrides: ["transition.motionBlur={shutter: 180, samples: 0}"])) }
        let plan = try #require(try job("slide", blur: "{shutter: 180, samples: 6}").plan)
        #expect(plan.cuts[0].settings?.motionBlur == MotionBlur(shutter: 180, samples: 6))
    }
}
