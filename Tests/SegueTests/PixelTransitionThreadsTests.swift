import Foundation
import Testing
@testable import Segue

/// The catalogue's transitions (FFmpeg xfade's and the gl-transitions ports, every name): their ends, and the per-pixel
/// ones composed on any number of threads (run under the thread sanitizer by scripts/tsan).
@Suite("Per-pixel transitions: ends and threads")
struct PixelTransitionThreadsTests {
    /// Every transition of the registry's catalogue, and every alias, as a transition.
    static let catalogue: [(name: String, transition: any Transition)] = {
        var all: [(String, any Transition)] = []
        for kind in TransitionRegistry.catalogue { all.append((kind.name, kind.init(ParameterValues()))) }
        for alias in TransitionRegistry.aliases { all.append((alias.name, alias.kind.init(alias.values))) }
        return all
    }()

    /// At 0.3 rather than 0.5: at 0.5 xfade's `distance` shows the incoming page wherever two
    /// colours lie more than half their range apart, which is everywhere on the test's pages.
    @Test("every catalogue name: progress 0 and 1 are pixel-equal to the hold frames, 0.3 to neither",
          arguments: catalogue.map(\.name))
    func ends(name: String) throws {
        var transition = try #require(Self.catalogue.first { $0.name == name }?.transition)
        // gl:dissolve burns a pixel only once progress passes 0.5 + luma / 2 - uLineWidth (0.4
        // for black): at 0.3 every pixel is still the outgoing page's, as in its GLSL. With the
        // widest rim (1) every pixel glows at 0.3, and none is the incoming page's yet.
        if name == "gl:dissolve" { transition = GLDissolve().with(GLDissolve.lineWidth, 1) }
        EndCheck().check(transition, middle: 0.3)
    }

    /// Every catalogue name drawn pixel by pixel (all but the pages: cover, reveal, the slides).
    static let perPixel: [String] = {
        let check = EndCheck(), pages = check.pages()
        return catalogue.filter { $0.transition.cut(from: pages[0], to: pages[1], progress: 0.37, bounds: check.canvas.bounds).sublayers.first?.pixelMix != nil }
            .map(\.name)
    }()

    @Test("every per-pixel transition is drawn pixel by pixel: all of the catalogue but its pages")
    func perPixelNames() {
        #expect(Self.perPixel.count >= 80 && Self.perPixel.contains("gl:swap") && Self.perPixel.contains("luma") && !Self.perPixel.contains("coverleft"),
                "\(Self.perPixel)")
    }

    @Test("a per-pixel transition's frame is the same bytes on 1, 2 and 5 compositor threads", arguments: perPixel)
    func anyThreads(name: String) throws {
        let transition = try #require(Self.catalogue.first { $0.name == name }?.transition)
        let check = EndCheck(), pages = check.pages()
        let scene = transition.cut(from: pages[0], to: pages[1], progress: 0.37, bounds: check.canvas.bounds)
        #expect(scene.sublayers.first?.pixelMix != nil, "\(name) is drawn pixel by pixel")
        let frames = [1, 2, 5].map { bytes(Compositor(threads: $0).render(scene, canvas: check.canvas)) }
        #expect(frames[0] == frames[1] && frames[0] == frames[2], "\(name)")
        // Drawn twice by one compositor (its pages' pictures kept from the first frame): the same.
        let compositor = Compositor(threads: 2)
        _ = compositor.render(transition.cut(from: pages[1], to: pages[2], progress: 0.8, bounds: check.canvas.bounds), canvas: check.canvas)
        #expect(bytes(compositor.render(scene, canvas: check.canvas)) == frames[0], "\(name) after another frame")
    }

    /// A page's picture is kept from one frame to the next and drawn again only when the page
    /// draws differently: moved, faded, another picture. Each frame of one compositor must be
    /// what a new compositor draws; a kept picture reused for a page that changed would not be.
    @Test("a per-pixel transition's kept page pictures: a page that moves, fades or changes picture is drawn anew",
          arguments: ["wipeleft", "gl:crosswarp", "fadegrays"])
    func keptPages(name: String) throws {
        let transition = try #require(Self.catalogue.first { $0.name == name }?.transition)
        let check = EndCheck(), pages = check.pages(), compositor = Compositor(threads: 2)
        for step in 0..<8 {
            var from = pages[step % 3 == 2 ? 2 : 0], to = pages[1]
            if step >= 4 { to.position.x += Double(step) * 3 }
            if step == 6 { from.opacity = 0.5 }
            let scene = transition.cut(from: from, to: to, progress: 0.3 + 0.05 * Double(step), bounds: check.canvas.bounds)
            let same = bytes(compositor.render(scene, canvas: check.canvas)) == bytes(Compositor(threads: 1).render(scene, canvas: check.canvas))
            #expect(same, "\(name) frame \(step)")
        }
    }
}
