import Foundation
import Testing

@Suite("Encoder settings")
struct EncodeTests {
    @Test("encode.deterministic: false reaches x264 (its threaded lookahead decides otherwise: other bytes, the same frames); the default repeats its bytes")
    func threadedLookahead() throws {
        let folder = temporaryFolder()
        func render(_ name: String, _ extra: [String]) throws -> (bytes: Data, frames: String?) {
            let out = folder.appendingPathComponent(name + ".mp4").path
            let r = try segue(["render", "--preset", "stories-cube", "--size", "360x640", "--set", "hold=1", example("a.jpg"), example("b.png"), example("c.webp"), "-o", out] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return (try Data(contentsOf: URL(fileURLWithPath: out)), try probe(out, stream: "v:0", entries: "nb_frames")["nb_frames"])
        }
        let first = try render("one", []), second = try render("two", [])
        let threaded = try render("threaded", ["--set", "encode.deterministic=false"])
        #expect(first.bytes == second.bytes, "the default gives the same bytes on every run")
        #expect(threaded.bytes != first.bytes, "x264's threaded lookahead makes other decisions")
        #expect(threaded.frames != nil && threaded.frames == first.frames, "\(String(describing: threaded.frames)) frames, \(String(describing: first.frames)) by default")
    }
}
