import Foundation
import Synchronization
import Testing
@testable import Segue

@Suite("Frames composed side by side: one thread a frame, taken by the sink in order")
struct FrameWorkersTests {
    /// A story of still holds, a moving slide and three kinds of cut, at 90x160.
    func storyJob(output: String, threads: Int) throws -> Job {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png", "c.webp"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        let path = folder.appendingPathComponent("story.yaml").path
        try """
            preset: stories-cube
            set: {fps: 20, hold: 0.4}
            slides:
              - {image: a.jpg, transition: {kind: crossfade, duration: 0.3}}
              - {image: b.png, motion: {kind: in}, transition: {kind: flip, duration: 0.5}}
              - {image: c.webp, transition: {kind: iris, duration: 0.3}}
              - {image: a.jpg}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let story = try Story.load(path)
        let preset = try Preset.load(story.preset!, overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25"], underlying: story.settings)
        return try Job(preset: preset, slides: story.slides, output: output, threads: threads)
    }

    @Test("a story with still holds, a moving slide and three cuts gives the same framemd5 for 1, 2, 3, 5 and 9 threads")
    func sameFramesForAnyThreads() throws {
        var texts: [Int: String] = [:]
        // Up to four frames at once; five and nine threads also draw some frames' bands together.
        for threads in [1, 2, 3, 5, 9] {
            let out = temporaryFolder().appendingPathComponent("story.framemd5").path
            let result = try Exporter.run(storyJob(output: out, threads: threads))
            // Still holds are composed once and repeated: fewer composed than written.
            #expect(result.framesComposed < result.frameCount && result.framesComposed > 20, "\(threads) threads: \(result)")
            texts[threads] = try String(contentsOfFile: out, encoding: .utf8)
        }
        let digests = GoldenTests.digests(texts[1]!)
        #expect(digests.count == 54 && Set(digests).count > 20)   // 4 holds of 0.4 s, cuts of 0.3, 0.5, 0.3 s at 20 fps
        for threads in [2, 3, 5, 9] { #expect(texts[threads] == texts[1], "\(threads) threads") }
    }

    @Test("cancelled while several threads compose: the export stops, says so and leaves nothing")
    func cancelledMidway() throws {
        for threads in [2, 3] {
            let folder = temporaryFolder()
            let out = folder.appendingPathComponent("frames").path
            let job = try storyJob(output: out, threads: threads)
            let outcome = endsWithin { () -> (written: Int, error: String) in
                let cancel = Cancellation(), written = Mutex(0)
                do {
                    try Exporter.run(job, cancellation: cancel) { progress in
                        written.withLock { $0 = progress.framesDone }
                        if progress.framesDone == 7 { cancel.cancel() }
                    }
                    return (written.withLock { $0 }, "none")
                } catch {
                    return (written.withLock { $0 }, "\(error)")
                }
            }
            let (written, error) = try #require(outcome, "\(threads) threads: the export did not end")
            #expect(error == "\(ExportError.cancelled)", "\(threads) threads")
            #expect(written >= 7 && written < 54, "\(threads) threads: \(written) frames")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "\(threads) threads")
        }
    }

    @Test("a picture that cannot be read, needed midway while several threads compose: its error, no hang, nothing left")
    func failureMidway() throws {
        let folder = temporaryFolder()
        // A JPEG cut short: its header tells its size, so it is decoded only when its screen comes near.
        let data = try Data(contentsOf: URL(fileURLWithPath: example("a.jpg")))
        let broken = folder.appendingPathComponent("cut.jpg").path
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: broken))
        let preset = try Preset.load("slide", overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25", "hold=0.5"])
        for threads in [2, 3] {
            let out = folder.appendingPathComponent("out.framemd5").path
            let job = try Job(preset: preset, inputs: [example("b.png"), example("c.webp"), example("b.png"), broken], output: out, threads: threads)
            let error = endsWithin { () -> String in
                do {
                    try Exporter.run(job)
                    return "none"
                } catch {
                    return "\(error)"
                }
            }
            #expect(error?.contains(broken) == true, "\(threads) threads: \(error ?? "the export did not end")")
            #expect(!FileManager.default.fileExists(atPath: out), "\(threads) threads")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cut.jpg"])
    }

    @Test("a sequenced queue hands items over in their order, whatever order threads put them in, never more than its window ahead")
    func sequencedQueue() {
        let count = 400, window = 3
        let queue = SequencedQueue<Int>(window: window)
        let taken = Atomic<Int>(0)   // takes begun
        let overrun = Atomic<Int>(-1)
        // Four putters, each its own places in increasing order (as the workers' frames are),
        // at uneven paces, so that later places are often put before earlier ones.
        let putters = (0..<4).map { putter in
            Thread {
                var random = SystemRandomNumberGenerator()
                for place in stride(from: putter, to: count, by: 4) {
                    if Bool.random(using: &random) { usleep(UInt32.random(in: 0...200, using: &random)) }
                    queue.put(place * 10, at: place)
                    // Put returns only once its place is within the window of the next taken.
                    if place >= taken.load(ordering: .acquiring) + window { overrun.store(place, ordering: .releasing) }
                }
            }
        }
        putters.forEach { $0.start() }
        let seen = endsWithin { () -> [Int] in
            var seen: [Int] = []
            for _ in 0..<count {
                // Counted as it starts, so that `taken` is never behind the queue's own count.
                taken.add(1, ordering: .releasing)
                seen.append(queue.take())
            }
            return seen
        }
        #expect(seen == (0..<count).map { $0 * 10 })
        #expect(overrun.load(ordering: .acquiring) == -1, "a place put \(window) or more ahead of the next taken")
    }

    @Test("a busy clock counts time when any thread is busy, once, however many are")
    func busyClock() {
        let time = Locked<UInt64>(0)
        let clock = BusyClock { time.withLock { $0 } }
        func at(_ ns: UInt64) { time.withLock { $0 = ns } }
        at(100); clock.begin()          // one busy from 100
        at(150); clock.begin()          // two from 150
        at(300); clock.end()            // one from 300
        at(400); clock.end()            // none from 400: 300 ns busy
        at(1000); clock.begin()
        at(1050); clock.end()           // 50 more
        #expect(clock.seconds == 350e-9)
    }
}
