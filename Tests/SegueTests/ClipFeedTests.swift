import CSegueAV
import Foundation
import Testing
@testable import Segue

@Suite("Clip feeds: decoding beside the compositor")
struct ClipFeedTests {
    /// A decoder of `clip` with its first frame on screen; the caller closes it.
    func firstFrame(of clip: String) throws -> OpaquePointer {
        var info = SegueClipInfo(), error = SegueAVError()
        let decoder = try #require(segue_clip_open(clip, 1 << 30, &info, &error))
        var shown = 0.0
        #expect(segue_clip_seek(decoder, 0, &error) >= 0 && segue_clip_advance(decoder, 0, &shown, &error) >= 0)
        return decoder
    }

    @Test("libswscale writes past a converted picture no further than the room left for it, which the pictures Segue converts have")
    func roomPastThePixels() throws {
        let folder = temporaryFolder()
        // 1080 wide in yuv420p, converted at its own size: libswscale's vector path writes
        // whole vectors, past the end of the last row.
        let decoder = try firstFrame(of: try testClip("wide.mp4", seconds: 0.1, size: "1080x16", in: folder))
        defer { segue_clip_close(decoder) }
        var error = SegueAVError()
        let count = 1080 * 16, room = Int(SEGUE_RGBA_SLACK) / 4, canary: UInt32 = 0xDEAD_BEEF
        var buffer = [UInt32](repeating: canary, count: count + room + 256)
        let status = buffer.withUnsafeMutableBytes { segue_clip_convert(decoder, 0, 0, 1080, 16, 1080, 16, 2, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &error) }
        #expect(status == 0)
        #expect(buffer[..<count].allSatisfy { $0 >> 24 == 0xFF }, "every pixel converted, opaque")
        let past = (count..<buffer.count).filter { buffer[$0] != canary }
        #expect(past.allSatisfy { $0 < count + room }, "written \((past.max() ?? count) - count + 1) pixels past the end; room for \(room)")
        // The arrays Segue has libswscale write into have that room.
        let converted = [UInt32](converted: count) { $0.update(repeating: 7, count: count) }
        #expect(converted.count == count && converted.capacity >= count + room && converted.allSatisfy { $0 == 7 })
    }

    @Test("a clip picture no longer shown lends its memory to the next only once nothing else holds it; shared memory is never written")
    func sparePictures() {
        let count = 64 * 32
        let fresh = { (value: UInt32) in [UInt32](converted: count) { $0.update(repeating: value, count: count) } }
        func address(_ pixels: [UInt32]) -> UnsafeRawPointer { pixels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress!) } }
        var spares = SparePictures()
        var shown: Image? = Image(width: 64, height: 32, pixels: fresh(1), isOpaque: false)
        let memory = address(shown!.pixels)
        spares.retire([shown!])
        #expect(spares.take(count: count) == nil, "still held by the compositor")
        shown = nil
        #expect(spares.take(count: 32) == nil, "another size")
        let reused = [UInt32](converted: count, reusing: spares.take(count: count)) { $0.update(repeating: 2, count: count) }
        #expect(address(reused) == memory, "the memory of the picture let go of")
        #expect(reused.allSatisfy { $0 == 2 } && reused.capacity >= count + [UInt32].rgbaSlack)
        #expect(spares.take(count: count) == nil, "taken once")
        // Pixels still held elsewhere are left as they are: the new ones go to memory of their own.
        let held = fresh(3)
        let other = [UInt32](converted: count, reusing: held) { $0.update(repeating: 4, count: count) }
        #expect(held.allSatisfy { $0 == 3 } && other.allSatisfy { $0 == 4 } && address(other) != address(held))
        // Pixels without libswscale's room (a photo turned upright) are not taken: they would be copied.
        spares.retire([Image(width: 64, height: 32, pixels: [UInt32](repeating: 5, count: count), isOpaque: true)])
        #expect(spares.take(count: count) == nil)
    }

    @Test("a clip picture converted on several threads has the same pixels as on one, scaled or at its own size")
    func convertOnThreads() throws {
        let folder = temporaryFolder()
        let decoder = try firstFrame(of: try testClip("slices.mp4", seconds: 0.1, size: "640x360", in: folder))
        defer { segue_clip_close(decoder) }
        var error = SegueAVError()
        // A crop scaled up, one scaled down, and the whole picture at its own size.
        for (x, y, w, h, width, height) in [(100.0, 20.0, 203.0, 360.0, 1080, 1920), (0.0, 0.0, 640.0, 360.0, 333, 187), (0.0, 0.0, 640.0, 360.0, 640, 360)] {
            var pictures: [[UInt32]] = []
            for threads: Int32 in [1, 2, 3, 8] {
                let pixels = [UInt32](converted: width * height) { buffer in
                    buffer.withMemoryRebound(to: UInt8.self, capacity: width * height * 4) { bytes in
                        #expect(segue_clip_convert(decoder, x, y, w, h, Int32(width), Int32(height), threads, bytes, &error) == 0)
                    }
                }
                pictures.append(pixels)
            }
            #expect(pictures.allSatisfy { $0 == pictures[0] }, "\(width)x\(height)")
            #expect(Set(pictures[0]).count > 16, "a picture, not a flat colour")
        }
    }

    func story(_ folder: URL) throws -> (Preset, [StorySlide]) {
        let preset = try Preset.load("stories-cube", overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25", "transition.duration=0.4"])
        let one = try testClip("one.mp4", seconds: 1.2, in: folder), two = try testClip("two.mp4", seconds: 1, rate: 24, in: folder)
        return (preset, [StorySlide(image: one), StorySlide(image: two), StorySlide(image: example("a.jpg"), hold: 0.3)])
    }

    @Test("two clips turning on one cube give the same frames on every run and for any thread count")
    func deterministic() throws {
        let folder = temporaryFolder()
        let (preset, slides) = try story(folder)
        var digests: [String] = []
        for threads in [1, 2, 1, 3] {
            let out = folder.appendingPathComponent("f\(digests.count).framemd5").path
            let job = try Job(preset: preset, slides: slides, output: out, threads: threads)
            #expect(job.clips.count == 2 && job.clips[0]?.info.frameRate == 30)
            try Exporter.run(job)
            let text = try String(contentsOfFile: out, encoding: .utf8)
            digests.append(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n"))
        }
        #expect(Set(digests).count == 1, "frames differ between runs or thread counts")
        // 1.2 s on screen (0 + 0.8 hold + 0.4 cube), then 1 s (0.4 + 0.2 + 0.4), then 0.3 s.
        let seconds: Double = 0.8 + 0.4 + 0.2 + 0.4 + 0.3
        #expect(digests[0].split(separator: "\n").count == Int((30 * seconds).rounded()))
    }

    @Test("a clip's hold is composed every frame and shows a new picture each time (a 30 fps clip at 30 fps)")
    func plays() throws {
        let folder = temporaryFolder()
        let (preset, slides) = try story(folder)
        let out = folder.appendingPathComponent("p.framemd5").path
        let job = try Job(preset: preset, slides: slides, output: out, threads: 2)
        let result = try Exporter.run(job)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        let digests = lines.map { $0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces) }
        // The first clip holds 0.8 s: frames 0...23, each a different clip frame.
        #expect(Set(digests[0..<24]).count == 24, "\(Set(digests[0..<24]).count) distinct frames in the hold")
        let clipSeconds: Double = 0.8 + 0.4 + 0.2 + 0.4
        #expect(result.framesComposed >= Int((30 * clipSeconds).rounded()))
    }

    @Test("a cancelled export with clips stops, and its feeds' threads end")
    func cancelled() throws {
        let folder = temporaryFolder()
        let (preset, slides) = try story(folder)
        let cancel = Cancellation()
        let out = folder.appendingPathComponent("x.mp4").path
        let job = try Job(preset: preset, slides: slides, output: out)
        #expect(throws: ExportError.cancelled) {
            try Exporter.run(job, cancellation: cancel) { progress in if progress.framesDone == 5 { cancel.cancel() } }
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
