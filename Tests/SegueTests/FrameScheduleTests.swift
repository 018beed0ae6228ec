import Foundation
import Testing
@testable import Segue

@Suite("The frame schedule: what a run opens, makes and lets go, and when")
struct FrameScheduleTests {
    /// A story of stills around a clip, with a line of text fixed to the screen for a second,
    /// its slides held `hold` seconds, and the schedule of `frames` (nil: all) with its storyboard.
    func schedule(hold: Double, frames: [Int]? = nil) throws -> (FrameSchedule, Storyboard, [Int]) {
        let folder = temporaryFolder()
        for name in ["a.jpg", "b.png"] {
            try FileManager.default.copyItem(atPath: example(name), toPath: folder.appendingPathComponent(name).path)
        }
        _ = try testClip("c.mp4", seconds: 1.5, size: "64x48", rate: 10, in: folder)
        let path = folder.appendingPathComponent("story.yaml")
        try """
            preset: crossfade
            set: {fps: 10, hold: \(hold), transition.duration: 0.5, canvas.size: [90, 160], canvas.scale: 0.25}
            overlays:
              - {text: "Hi", start: 0.5, end: 1.5}
            slides:
              - image: a.jpg
              - clip: c.mp4
              - image: b.png
              - image: a.jpg
            """.write(to: path, atomically: true, encoding: .utf8)
        let story = try Story.load(path.path)
        let job = try Job(JobRequest(story: story, output: folder.appendingPathComponent("out.framemd5").path))
        let board = try PreparedFrames(job: job).storyboard
        let indices = frames ?? Array(0..<job.timeline.frameCount)
        return (FrameSchedule(board, frames: indices), board, indices)
    }

    /// The sources frame `index` draws, read off its scene.
    func drawn(_ board: Storyboard, _ index: Int) -> Set<PictureSource> {
        Set(PictureCache.keys(in: board.scene(at: index), scale: board.canvas.scale).map(\.source))
    }

    @Test("a clip opens a second before its first frame and closes after its last; a picture is let go right after the last frame that draws it")
    func stepsAtTheirFrames() throws {
        let (schedule, board, frames) = try schedule(hold: 2)
        // The frames whose scenes draw the clip, read off the scenes, are the schedule's (and
        // the first of its incoming crossfade, at progress 0, which shows none of it).
        let clipFrames = frames.filter { drawn(board, $0).contains(.clip(1)) }
        let clip = try #require(schedule.clips[1])
        #expect(schedule.clips.count == 1 && clip == (clipFrames.first! - 1)...clipFrames.last!, "\(clip) for \(clipFrames)")
        let opens = schedule.beforePlanning.compactMap { if case .openClip(1) = $0.step { $0.frame } else { nil } }
        let closes = schedule.afterShowing.compactMap { if case .closeClip(1) = $0.step { $0.frame } else { nil } }
        #expect(opens == [clip.lowerBound - 10] && closes == [clip.upperBound], "\(opens) \(closes) for \(clip)")
        // Every release comes right after the last frame that draws what it lets go (the
        // caption's within a frame of its end), and no later frame draws it.
        let releases = schedule.afterShowing.compactMap { timed -> (Int, Set<PictureSource>)? in
            if case let .release(sources) = timed.step { (timed.frame, sources) } else { nil }
        }
        #expect(releases.count == 2, "a.jpg is drawn to the end; b.png and the text are not: \(releases)")
        var released = Set<PictureSource>()
        for (frame, sources) in releases {
            for source in sources {
                let last = frames.last { drawn(board, $0).contains(source) }!
                #expect(frames.allSatisfy { $0 <= frame || !drawn(board, $0).contains(source) }, "\(source) drawn after frame \(frame)")
                #expect(frame - last <= 2, "\(source) last drawn on frame \(last), let go after frame \(frame)")
                #expect(released.insert(source).inserted, "\(source) let go twice")
            }
        }
        // Screens are asked for two ahead of the one planned, once each.
        let screens = schedule.beforePlanning.compactMap { if case let .prepareScreens(through) = $0.step { through } else { nil } }
        #expect(screens == [2, 3, 4, 5])
    }

    @Test("the steps grow with the slides, not with the frames; a run of frames that does not show the clip never opens it")
    func stepsCount() throws {
        let short = try schedule(hold: 1).0, long = try schedule(hold: 8).0
        #expect(short.beforePlanning.count == long.beforePlanning.count && short.afterShowing.count == long.afterShowing.count)
        let (chunk, board, frames) = try schedule(hold: 2, frames: Array(0..<10))
        #expect(frames.allSatisfy { !drawn(board, $0).contains(.clip(1)) })
        #expect(chunk.clips.isEmpty && !chunk.beforePlanning.contains { if case .openClip = $0.step { true } else { false } })
    }
}
