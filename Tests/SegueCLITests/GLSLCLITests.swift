import Foundation
import SegueTestSupport
import Testing

/// GLSL transitions from the command line: a gl-transitions name Segue has no port of, found
/// in the folder the user names; a shader that gives NaN refused with its frame's time.
@Suite("GLSL transitions from the command line")
struct GLSLCLITests {
    /// A transition in gl-transitions' format: the next page in from the left as progress goes.
    static let wipe = "vec4 transition(vec2 uv) { return uv.x < progress ? getToColor(uv) : getFromColor(uv); }\n"

    @Test("gl:NAME (or NAME alone) without a port runs NAME.glsl from --gl-transitions or SEGUE_GL_TRANSITIONS; without either it is refused naming both; transitions show lists its uniforms")
    func catalogueFallback() throws {
        let folder = temporaryFolder()
        let catalogue = folder.appendingPathComponent("transitions")
        try FileManager.default.createDirectory(at: catalogue, withIntermediateDirectories: true)
        try ("uniform float edge; // = 0.25\n" + Self.wipe).write(to: catalogue.appendingPathComponent("LeftWipe.glsl"), atomically: true, encoding: .utf8)
        let args = ["render", "--preset", "crossfade", "--set", "transition.kind=gl:leftwipe", "--set", "transition.curve=linear", "--set", "hold=0.1",
                    "--set", "transition.duration=1", "--size", "64x64", "--set", "canvas.scale=0.25", "--frames", "18", example("a.jpg"), example("b.png")]
        let byOption = try segue(args + ["--gl-transitions", catalogue.path, "-o", folder.appendingPathComponent("a").path])
        #expect(byOption.status == 0, "\(byOption.stderr)")
        let byEnvironment = try run(segueBinary, args + ["-o", folder.appendingPathComponent("b").path], in: folder,
                                    environment: ["SEGUE_GL_TRANSITIONS": catalogue.path])
        #expect(byEnvironment.status == 0, "\(byEnvironment.stderr)")
        let frames = try ["a", "b"].map { try Data(contentsOf: folder.appendingPathComponent("\($0)/frame-00018.png")) }
        #expect(frames[0] == frames[1])
        let unknown = try segue(args + ["-o", folder.appendingPathComponent("c").path])
        #expect(unknown.status == 2 && unknown.stderr.contains("'gl:leftwipe'") && unknown.stderr.contains("gl:swap")
                && unknown.stderr.contains("to run gl-transitions' own leftwipe.glsl, name a checkout of its transitions/ folder with --gl-transitions DIR or SEGUE_GL_TRANSITIONS")
                && !unknown.stderr.contains("stories-cube"), "\(unknown.stderr)")
        // A folder without the file says which folder it looked in.
        let absent = try segue(args.map { $0 == "transition.kind=gl:leftwipe" ? "transition.kind=gl:GridFlip" : $0 }
                               + ["--gl-transitions", catalogue.path, "-o", folder.appendingPathComponent("d").path])
        #expect(absent.status == 2 && absent.stderr.contains("the gl-transitions folder \(catalogue.path) (--gl-transitions or SEGUE_GL_TRANSITIONS) has no GridFlip.glsl"), "\(absent.stderr)")
        // The file's name alone, as for the ports: the same frame.
        let bare = try segue(args.map { $0 == "transition.kind=gl:leftwipe" ? "transition.kind=LeftWipe" : $0 }
                             + ["--gl-transitions", catalogue.path, "-o", folder.appendingPathComponent("e").path])
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("e/frame-00018.png")) == frames[0])
        // Its uniforms, from the file.
        let shown = try segue(["transitions", "show", "gl:LeftWipe", "--gl-transitions", catalogue.path])
        #expect(shown.status == 0 && shown.stdout.contains("gl-transitions' own file \(catalogue.path)/LeftWipe.glsl")
                && shown.stdout.contains("transition.edge") && shown.stdout.contains("default 0.25"), "\(shown.stdout)\(shown.stderr)")
        let notShown = try segue(["transitions", "show", "gl:LeftWipe"])
        #expect(notShown.status == 2 && notShown.stderr.contains("--gl-transitions DIR or SEGUE_GL_TRANSITIONS"), "\(notShown.stderr)")
    }

    @Test("a shader that gives NaN, or takes longer than SEGUE_GLSL_TIMEOUT on a frame: the frame is refused with its time, exit 1, nothing written; one that does not compile: exit 2 at its line")
    func refusals() throws {
        let folder = temporaryFolder()
        try "vec4 transition(vec2 uv) { float n = sqrt(-1.0 - progress); return vec4(n); }\n"
            .write(to: folder.appendingPathComponent("nan.glsl"), atomically: true, encoding: .utf8)
        try "vec4 transition(vec2 uv) {\n  return nothing;\n}\n".write(to: folder.appendingPathComponent("broken.glsl"), atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out.mp4").path
        func render(_ file: String) throws -> Run {
            try segue(["render", "--preset", "crossfade", "--set", "transition.kind=glsl", "--set", "transition.file=\(folder.appendingPathComponent(file).path)",
                       "--set", "hold=0.2", "--size", "64x64", "--set", "canvas.scale=0.25", example("a.jpg"), example("b.png"), "-o", out])
        }
        let nan = try render("nan.glsl")
        #expect(nan.status == 1 && nan.stderr.contains("refused") && nan.stderr.contains("nan.glsl") && nan.stderr.contains("frame 7 (0.233 s)"), "\(nan.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // A frame slower than SEGUE_GLSL_TIMEOUT (llvmpipe bounds loops, so none runs forever; this one is slow).
        try "vec4 transition(vec2 uv) {\n  float x = 0.0;\n  for (int i = 0; i < 100000; i++) { for (int j = 0; j < 100000; j++) { x += sin(float(j) + uv.x); } }\n  return vec4(x);\n}\n"
            .write(to: folder.appendingPathComponent("slow.glsl"), atomically: true, encoding: .utf8)
        let slow = try run(segueBinary, ["render", "--preset", "crossfade", "--set", "transition.kind=glsl", "--set", "transition.file=slow.glsl",
                                         "--set", "hold=0.2", "--size", "64x64", "--set", "canvas.scale=0.25", example("a.jpg"), example("b.png"), "-o", out],
                           in: folder, environment: ["SEGUE_GLSL_TIMEOUT": "0.1"])
        #expect(slow.status == 1 && slow.stderr.contains("frame 7 (0.233 s): refused") && slow.stderr.contains("ran for more than 0.1 s"), "\(slow.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let broken = try render("broken.glsl")
        #expect(broken.status == 2 && broken.stderr.contains("broken.glsl:2:"), "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
