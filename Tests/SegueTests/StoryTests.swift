import Foundation
import Testing
@testable import Segue

@Suite("Stories: a hold, a motion and a cut per slide")
struct StoryTests {
    func story(_ yaml: String) throws -> (Story, URL) {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png", "c.webp"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        let path = folder.appendingPathComponent("story.yaml")
        try yaml.write(to: path, atomically: true, encoding: .utf8)
        return (try Story.load(path.path), folder)
    }

    func job(_ yaml: String, overrides: [String] = ["canvas.size=[90, 160]", "canvas.scale=0.25"]) throws -> Job {
        let (story, folder) = try story(yaml)
        let preset = try Preset.load(story.preset ?? "stories-cube", overrides: PresetPatch(overrides: overrides), underlying: story.settings)
        return try Job(preset: preset, slides: story.slides, output: folder.appendingPathComponent("out.framemd5").path)
    }

    @Test("three slides with their own holds and two different cuts: the frame count, the holds, which cut at which progress")
    func timeline() throws {
        let job = try job("""
            preset: slide
            set: {fps: 10, hold: 9}
            slides:
              - {image: a.jpg, hold: 1, transition: {kind: crossfade, duration: 0.5, curve: linear}}
              - {image: b.png, hold: 2, transition: {kind: telegram-cube, duration: 1, curve: linear, maxAngle: 45}}
              - {image: c.webp, hold: 0.5}
            """)
        let plan = try #require(job.plan)
        #expect(plan.holds == [1, 2, 0.5])
        #expect(plan.cuts.map { $0.settings?.kind } == ["crossfade", "telegram-cube"] && plan.cuts.map(\.duration) == [0.5, 1])
        #expect(plan.cuts[1].settings?.values == TelegramCube().with(TelegramCube.maxAngle, 45).values)
        // The kinds are resolved to transition types when the story is read.
        #expect(plan.cuts.map { $0.settings.map { type(of: $0.transition) == Crossfade.self } } == [true, false])
        let timeline = job.timeline
        // 1 + 0.5 + 2 + 1 + 0.5 = 5 s at 10 fps.
        #expect(timeline.frameCount == 50)
        for i in 0..<10 { #expect(timeline.moment(at: i) == .hold(index: 0), "frame \(i)") }
        for i in 10..<15 {
            guard case let .transition(step, progress, _) = timeline.moment(at: i) else { Issue.record("frame \(i) is no transition"); continue }
            #expect(step == 0 && close(progress, Double(i - 10) / 5, 1e-9), "frame \(i)")
        }
        for i in 15..<35 { #expect(timeline.moment(at: i) == .hold(index: 1), "frame \(i)") }
        for i in 35..<45 {
            guard case let .transition(step, progress, _) = timeline.moment(at: i) else { Issue.record("frame \(i) is no transition"); continue }
            #expect(step == 1 && close(progress, Double(i - 35) / 10, 1e-9), "frame \(i)")
        }
        for i in 45..<50 { #expect(timeline.moment(at: i) == .hold(index: 2), "frame \(i)") }
        // Each cut is drawn by its own transition.
        let board = try PreparedFrames(job: job).storyboard
        #expect(board.scene(at: 12).sublayers.count == 2)                         // a crossfade: both pages flat
        #expect(board.scene(at: 40).sublayers.first?.name == "collectionView")    // the Telegram cube's collection view
    }

    @Test("screens are prepared two ahead of the frame composed and let go once passed; a passed one is made again if asked")
    func screensAhead() throws {
        let job = try job("""
            preset: crossfade
            set: {fps: 10, transition.duration: 0.5}
            slides:
              - {image: b.png, hold: 1}
              - {image: a.jpg, hold: 1}
              - {image: c.webp, hold: 1}
              - {image: a.jpg, hold: 1}
              - {image: b.png, hold: 1}
            """)
        let frames = try PreparedFrames(job: job), board = frames.storyboard, resources = frames.resources
        func wait(for inputs: Set<Int>) -> Bool {
            let sources = Set(inputs.map(PictureSource.still))
            for _ in 0..<500 where !sources.isSubset(of: resources.pictures.preparedSources) { Thread.sleep(forTimeInterval: 0.01) }
            return sources.isSubset(of: resources.pictures.preparedSources)
        }
        // Slides 3 and 4 name the files of slides 1 and 0: the same sources.
        #expect(wait(for: [0, 1, 2]), "\(resources.pictures.preparedSources)")
        let first = try Compositor(threads: 1).render(board.scene(at: 0), canvas: board.canvas, pictures: resources.pictures)
        // Frame 32 is slide 2's hold (frames 30-39): slide 1's picture is still drawn by slide 3, slide 0's by slide 4.
        resources.willPlan(32)
        resources.didShow(32)
        #expect(wait(for: [0, 1, 2]))
        // Frame 47 is slide 3's hold: slide 2's picture (c.webp) is drawn by no later slide.
        resources.willPlan(47)
        resources.didShow(47)
        #expect(!resources.pictures.preparedSources.contains(.still(2)) && wait(for: [0, 1]), "\(resources.pictures.preparedSources)")
        let again = try Compositor(threads: 1).render(board.scene(at: 0), canvas: board.canvas, pictures: resources.pictures)
        #expect(Array(UnsafeBufferPointer(start: first.pixels, count: first.width * first.height))
                == Array(UnsafeBufferPointer(start: again.pixels, count: again.width * again.height)))
        let passed = try Compositor(threads: 1).render(board.scene(at: 37), canvas: board.canvas, pictures: resources.pictures)
        #expect(resources.pictures.preparedSources.contains(.still(2)) && passed.width == 90)
    }

    @Test("a hard cut is no transition at all; per-slide transitions may not be whole-story ones")
    func cutsAndRefusals() throws {
        let job = try job("""
            set: {fps: 10}
            slides:
              - {image: a.jpg, hold: 1, transition: cut}
              - {image: b.png, hold: 1}
            """)
        #expect(job.timeline.frameCount == 20 && job.timeline.moment(at: 9) == .hold(index: 0) && job.timeline.moment(at: 10) == .hold(index: 1))
        #expect(job.plan?.cuts == [.cut], "a cut is its own case, not a transition of no length")
        do {
            _ = try self.job("slides:\n  - {image: a.jpg, transition: cube-fold}\n  - {image: b.png}\n")
            Issue.record("cube-fold was taken as a cut")
        } catch {
            #expect("\(error)".contains("line 2: 'transition' is 'cube-fold' (expected a transition that joins two slides"), "\(error)")
            #expect("\(error)".contains("builds screens of its own and is used as a whole-story preset"))
        }
    }

    @Test("story files: unknown keys with their line and the likely key, missing images, negative holds")
    func errors() throws {
        let cases: [(String, String)] = [
            ("slides:\n  - image: a.jpg\n    hodl: 2\n", "line 3: unknown key 'slides[1].hodl'. Did you mean 'hold'?"),
            ("slides:\n  - image: gone.jpg\n", "line 2: 'slides[1].image' is '"),
            ("slides:\n  - {image: a.jpg, hold: -1}\n", "line 2: 'slides[1].hold' is -1, out of range (expected 0...3600)"),
            ("slides:\n  - {image: a.jpg, motion: zoom}\n  - {image: b.png}\n", "line 2: 'motion' is 'zoom' (expected one of: none, in, out, left, right, up, down"),
            ("slides:\n  - image: a.jpg\n    transition: {kind: crossfade, duraton: 1}\n  - {image: b.png}\n",
             "line 3: unknown key 'transition.duraton'. Did you mean 'duration'?"),
            ("slides: []\n", "'slides' is an empty list"),
            ("slide:\n  - {image: a.jpg}\n", "unknown key 'slide'. Did you mean 'slides'?"),
        ]
        for (yaml, message) in cases {
            do {
                _ = try job(yaml)
                Issue.record("accepted: \(yaml)")
            } catch {
                #expect("\(error)".contains(message), "\(yaml): \(error)")
            }
        }
    }

    @Test("Ken Burns: a bright dot moves away from the zoom's center smoothly, second differences within 0.05 px per frame²")
    func motionIsSmooth() throws {
        // A dark picture with a small bright dot up and to the left of the center.
        let width = 360, height = 640
        let image = makeImage(width: width, height: height) { x, y in
            let dx = Double(x) + 0.5 - 120, dy = Double(y) + 0.5 - 200
            let v = UInt8(max(0, 255 - (dx * dx + dy * dy) * 2.5).rounded())   // 10 px in radius: 5 on the canvas
            return (v, v, v)
        }
        var preset = try Preset.load("crossfade", overrides: ["canvas.size=[180, 320]", "canvas.scale=0.5", "fps=30", "hold=3",
                                                              "motion.kind=in", "motion.amount=0.3"])
        preset.fit = .fill
        let storyboardJob = try Job(preset: preset, inputs: [example("a.jpg")], output: "x.framemd5")
        let plan = try #require(storyboardJob.plan)
        #expect(plan.motions == [Motion(kind: .in, amount: 0.3)])
        let board = Storyboard(sizes: [image.size], preset: preset), pictures = PictureCache([image])
        let pages = board.pages
        let timeline = storyboardJob.timeline
        #expect(timeline.frameCount == 90)
        var centroids: [Point] = []
        for index in 0..<90 {
            let t = Double(index) / Double(timeline.frameCount - 1)
            let scene = Layer.root(preset.canvas.bounds, [pages[0].moving(plan.motions[0], at: t)])
            let frame = try Compositor(threads: 1).render(scene, canvas: preset.canvas, pictures: pictures)
            var sx = 0.0, sy = 0.0, total = 0.0
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let v = Double(red(frame[x, y]))
                    sx += v * (Double(x) + 0.5); sy += v * (Double(y) + 0.5); total += v
                }
            }
            centroids.append(Point(x: sx / total, y: sy / total))
        }
        let center = Point(x: 90, y: 160)
        let distances = centroids.map { (($0.x - center.x) * ($0.x - center.x) + ($0.y - center.y) * ($0.y - center.y)).squareRoot() }
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $1 > $0 }, "moves away monotonically: \(distances)")
        #expect(distances.last! / distances.first! > 1.25 && distances.last! / distances.first! < 1.35)   // a 30 % zoom
        let second = (1..<(centroids.count - 1)).map { i -> Double in
            let ax = centroids[i - 1].x - 2 * centroids[i].x + centroids[i + 1].x
            let ay = centroids[i - 1].y - 2 * centroids[i].y + centroids[i + 1].y
            return (ax * ax + ay * ay).squareRoot()
        }
        #expect(second.max()! <= 0.05, "largest second difference \(second.max()!) px/frame²")
    }

    @Test("Ken Burns on fine detail: 1.4 px dots of a large picture fitted small move without shimmer, second differences within 0.05 px per frame²",
          arguments: [Motion.Kind.in, .out, .left, .up])
    func fineDetailIsSmooth(kind: Motion.Kind) throws {
        // A 1600x1200 picture of blurred dots 6 px in radius (σ 3 px), fitted into 360x640:
        // each about 1.4 px in radius on the canvas, under a 20 % motion over 3 s.
        let dots = [(520.0, 300.0), (1080.0, 333.0), (617.0, 905.0), (1033.0, 1011.0), (850.5, 640.5)]
        let image = makeImage(width: 1600, height: 1200) { x, y in
            var v = 0.0
            for (cx, cy) in dots {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                v += 255 * exp(-(dx * dx + dy * dy) / 18)
            }
            let byte = UInt8(min(255, v.rounded()))
            return (byte, byte, byte)
        }
        var preset = try Preset.load("crossfade", overrides: ["canvas.size=[360, 640]", "canvas.scale=1", "fps=30", "hold=3",
                                                              "motion.kind=\(kind.rawValue)", "motion.amount=0.2"])
        preset.fit = .fit
        let board = Storyboard(sizes: [image.size], preset: preset), pictures = PictureCache([image])
        let motion = Motion(kind: kind, amount: 0.2)
        // Where each dot is on the canvas at progress t: the fitted picture (360x270, centered)
        // under the motion's transform about the canvas's center.
        let fitted = 360.0 / 1600
        func expected(_ dot: (Double, Double), _ t: Double) -> Point {
            let m = motion.transform(at: t, page: preset.canvas.bounds.size)
            let big = 1.2
            let x = ((dot.0 - 800) * fitted) * big, y = ((dot.1 - 600) * fitted) * big
            let p = m.project(Point(x: x, y: y))
            return Point(x: 180 + p.x, y: 320 + p.y)
        }
        var tracks = Array(repeating: [Point](), count: dots.count)
        for index in 0..<90 {
            let t = Double(index) / 89
            let scene = Layer.root(preset.canvas.bounds, [board.pages[0].moving(motion, at: t)])
            let frame = try Compositor(threads: 1).render(scene, canvas: preset.canvas, pictures: pictures)
            for (d, dot) in dots.enumerated() {
                let at = expected(dot, t)
                var sx = 0.0, sy = 0.0, total = 0.0
                for y in Int(at.y) - 7...Int(at.y) + 7 {
                    for x in Int(at.x) - 7...Int(at.x) + 7 {
                        let v = Double(red(frame[x, y]))
                        sx += v * (Double(x) + 0.5); sy += v * (Double(y) + 0.5); total += v
                    }
                }
                let centroid = Point(x: sx / total, y: sy / total)
                #expect(abs(centroid.x - at.x) < 0.25 && abs(centroid.y - at.y) < 0.25, "dot \(d) at \(centroid), expected \(at)")
                tracks[d].append(centroid)
            }
        }
        var worst = 0.0
        for track in tracks {
            for i in 1..<(track.count - 1) {
                let ax = track[i - 1].x - 2 * track[i].x + track[i + 1].x
                let ay = track[i - 1].y - 2 * track[i].y + track[i + 1].y
                worst = max(worst, (ax * ax + ay * ay).squareRoot())
            }
        }
        print("fine detail, \(kind): largest second difference \(worst) px/frame²")
        #expect(worst <= 0.05, "largest second difference \(worst) px/frame²")
    }

    @Test("preparing a frame's pictures makes those not made yet, once, and decodes nothing for those made")
    func prepareMakesWhatIsMissing() throws {
        let loads = Locked(0)
        let cache = PictureCache { _ in
            loads.withLock { $0 += 1 }
            return Image(width: 40, height: 30, pixels: Array(repeating: 0xFF00_00FF, count: 40 * 30))
        }
        var page = Layer(frame: Rect(x: 0, y: 0, width: 20, height: 15))
        page.contents = .picture(Picture(source: 0, size: Size(width: 40, height: 30)))
        var other = page
        other.contents = .picture(Picture(source: 1, size: Size(width: 40, height: 30)))
        let first = Layer.root(Rect(x: 0, y: 0, width: 20, height: 15), [page])
        let both = Layer.root(Rect(x: 0, y: 0, width: 20, height: 15), [page, other])
        try cache.prepare(first, scale: 1, threads: 2)
        #expect(cache.preparedSources == [.still(0)] && loads.withLock { $0 } == 1)
        // Source 0's pixels let go once its picture is made: preparing again must not decode it.
        cache.releaseSources(whoseKeysAreReady: [.still(0): Set(PictureCache.keys(in: first, scale: 1))])
        try cache.prepare(both, scale: 1, threads: 2)
        #expect(cache.preparedSources == [.still(0), .still(1)] && loads.withLock { $0 } == 2)
    }

    @Test("a moving picture is prepared once, at the largest size it is drawn at")
    func preparedOnce() throws {
        let preset = try Preset.load("crossfade", overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25", "motion.kind=in", "motion.amount=0.2"])
        let job = try Job(preset: preset, inputs: [example("a.jpg")], output: "x.framemd5")
        let board = try PreparedFrames(job: job).storyboard
        let keys = Set((0..<job.timeline.frameCount).flatMap { PictureCache.keys(in: board.scene(at: $0), scale: 0.25) })
        #expect(keys.count == 1 && keys.first!.width == 108 && keys.first!.height == 192)   // 90x160 x 1.2
    }
}
