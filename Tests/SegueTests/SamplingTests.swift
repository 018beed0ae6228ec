import Foundation
import Testing
@testable import Segue

@Suite("Contact sheets, the opening turn, the grid's scroll")
struct SamplingTests {
    @Test("a contact sheet shows the first hold, every transition and the last hold")
    func sheetSamplesTransitions() throws {
        for name in ["stories-cube", "crossfade", "slide", "telegram-cube"] {
            let preset = try Preset.load(name, overrides: ["canvas.size=[90, 160]", "canvas.scale=0.25"])
            let job = try Job(preset: preset, inputs: [example("a.jpg"), example("b.png"), example("c.webp"), example("a.jpg")],
                              output: "sheet.png", format: .sheet)
            let timeline = job.timeline
            let frames = job.frameIndices(count: timeline.frameCount)
            let moments = frames.map { timeline.moment(at: $0) }
            #expect(moments.first == .hold(index: 0), "\(name)")
            #expect(moments.last == .hold(index: timeline.screenCount - 1), "\(name)")
            for step in 0..<(timeline.screenCount - 1) {
                let inStep = moments.filter { if case .transition(step, _, _) = $0 { return true } else { return false } }
                #expect(inStep.count >= 2, "\(name): transition \(step) has \(inStep.count) frames on the sheet")
            }
            #expect(frames.count <= OutputFormat.sheet.samples! && frames == frames.sorted() && Set(frames).count == frames.count)
        }
    }

    @Test("with more transitions than frames to spare, the sheet takes the middles of evenly chosen ones")
    func sheetManyTransitions() {
        let timeline = Timeline(screenCount: 30, fps: 30, hold: 1, duration: 0.5, curve: .linear)
        let frames = timeline.sample(12)
        #expect(frames.count == 12)
        let transitions = frames.filter { if case .transition = timeline.moment(at: $0) { return true } else { return false } }
        #expect(transitions.count == 10)
    }

    @Test("telegram-cube enterFirst opens turning the first page in, not on an empty hold")
    func enterFirstOpensTurning() throws {
        let preset = try Preset.load("telegram-cube", overrides: ["transition.enterFirst=true", "hold=2"])
        let timeline = preset.timeline(screens: preset.screenCount(inputs: 3))
        #expect(timeline.holds == [0, 2, 2, 2])
        guard case .transition(step: 0, _, _) = timeline.moment(at: 1) else {
            Issue.record("frame 1 is \(timeline.moment(at: 1)), not the opening turn")
            return
        }
    }

    @Test("shared-zoom scrolls its grid so every tapped cell is on screen, with 40 photos")
    func gridScrolls() {
        let canvas = Canvas(width: 90, height: 160, scale: 0.25)
        let zoom = SharedZoom()
        let pages = (0..<40).map { i -> Layer in
            var page = Layer(frame: canvas.bounds)
            page.contents = picture(makeImage(width: 4, height: 4) { _, _ in (UInt8(i * 6), 100, 100) })
            return page
        }
        for step in 0..<(zoom.screenCount(pages: pages.count) - 1) {
            for progress in [0.02, 0.5, 0.98] {
                let items = zoom.scene(step: step, progress: progress, pages: pages, bounds: canvas.bounds).drawList(scale: canvas.scale)
                let placeholder = items.first { $0.name == "placeholder" }
                #expect(placeholder != nil, "step \(step)")
                for corner in placeholder?.corners ?? [] {
                    #expect(corner.y >= -1e-9 && corner.y <= Double(canvas.height) + 1e-9, "step \(step) at \(progress): the tapped cell is off screen at y = \(corner.y)")
                }
            }
        }
        // The first screens are not scrolled at all; the grid never scrolls past its end.
        #expect(zoom.scrollOffset(0, pages: 40, bounds: canvas.bounds) == 0)
        let last = zoom.cellFrame(39, bounds: canvas.bounds)
        #expect(zoom.scrollOffset(40, pages: 40, bounds: canvas.bounds) == last.maxY - canvas.bounds.height)
    }
}
