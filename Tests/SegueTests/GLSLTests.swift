import Foundation
import SegueTestSupport
import Testing
@testable import Segue

/// GLSL transitions run by Mesa's llvmpipe through Segue's own EGL loader, against the same
/// files run by the test's harness (moderngl, `Tests/Reference/glsl.py`), against Segue's
/// native port of one, and with a uniform of the user's own set from a preset.
@Suite("GLSL transitions on the CPU")
struct GLSLTests {
    typealias Stills = GLTransitionTests

    /// The frame the GLSL file at `path` draws at `progress` from the two stills.
    static func frame(_ path: String, progress: Double, values: ParameterValues = ParameterValues()) throws -> [UInt32] {
        let ((_, _), (a, b)) = try Stills.stills.get()
        var settings = values
        settings[GLSLTransition.file] = path
        _ = try GLSLPrograms.shared.program(path, width: Stills.width, height: Stills.height)   // compiles, or says why
        let transition = try GLSLTransition(settings).opening(MediaFiles(), width: Stills.width, height: Stills.height, limits: Limits())
        return Stills.frame(transition, progress: progress, a: a, b: b)
    }

    /// The PSNR of two of Segue's frames.
    static func psnr(_ a: [UInt32], _ b: [UInt32]) -> Double {
        let bytes = b.flatMap { p in (0..<4).map { UInt8(truncatingIfNeeded: p >> (8 * $0)) } }
        return bytes.withUnsafeBufferPointer { Stills.psnr(a, $0.baseAddress!, columns: false) }
    }

    @Test("gl-transitions' files drawn by Segue's llvmpipe are the harness's frames at 0.1 … 0.9: PSNR at least 40 dB",
          .wholeSuite("the GLSL files run by llvmpipe through moderngl"), arguments: ["crosswarp", "doorway", "InvertedPageCurl", "Swirl"])
    func againstHarness(file: String) throws {
        let theirs = try Stills.reference(file)
        let size = Stills.width * Stills.height * 4
        for (k, progress) in Stills.progresses.enumerated() {
            let ours = try Self.frame(Stills.glsl(file), progress: progress)
            let psnr = theirs.withUnsafeBytes { Stills.psnr(ours, $0.baseAddress!.advanced(by: k * size).assumingMemoryBound(to: UInt8.self), columns: false) }
            #expect(psnr >= 40, "\(file) at \(progress): PSNR \(String(format: "%.1f", psnr)) dB")
        }
    }

    @Test("every gl-transitions file of the reference folder compiles and draws a picture (no NaN) that is neither page at 0.5",
          arguments: GLTransitionTests.names)
    func everyFile(file: String) throws {
        let (_, (a, b)) = try Stills.stills.get()
        let program = try GLSLPrograms.shared.program(Stills.glsl(file), width: Stills.width, height: Stills.height)
        let drawn = a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in program.draw(from: pa.baseAddress!, to: pb.baseAddress!, progress: 0.5, values: ParameterValues()) }
        }
        #expect(drawn.problem == nil, "\(file): \(drawn.problem ?? "")")
        #expect(drawn.pixels != a && drawn.pixels != b, "\(file)")
    }

    @Test("crosswarp run from its GLSL file agrees with Segue's native port (PSNR at least 35 dB), and is the same bytes drawn twice")
    func againstPort() throws {
        let (_, (a, b)) = try Stills.stills.get()
        for progress in [0.2, 0.5, 0.8] {
            let glsl = try Self.frame(Stills.glsl("crosswarp"), progress: progress)
            let native = Stills.frame(GLCrosswarp(), progress: progress, a: a, b: b)
            let psnr = Self.psnr(native, glsl)
            #expect(psnr >= 35, "crosswarp at \(progress): PSNR \(String(format: "%.1f", psnr)) dB")
            // The same bytes when drawn again.
            #expect(try Self.frame(Stills.glsl("crosswarp"), progress: progress) == glsl)
        }
    }

    /// A transition of the user's own: the next page from the left up to 2 × reach × progress.
    static let mine = """
        // A wipe that reaches `reach` of the screen by the middle.
        uniform float reach; // = 0.5
        uniform bool flipped; // = false

        vec4 transition(vec2 uv) {
          float x = flipped ? 1.0 - uv.x : uv.x;
          return x < 2.0 * reach * progress ? getToColor(uv) : getFromColor(uv);
        }
        """

    @Test("a user's file: its uniform set in a preset changes the frames as the uniform does; unknown and mistyped uniforms are refused")
    func userUniforms() throws {
        let folder = temporaryFolder()
        let glsl = folder.appendingPathComponent("mine.glsl")
        try Self.mine.write(to: glsl, atomically: true, encoding: .utf8)
        let preset = folder.appendingPathComponent("mine.yaml")
        func load(_ transition: String) throws -> GLSLTransition {
            try "extends: crossfade\ntransition: \(transition)\n".write(to: preset, atomically: true, encoding: .utf8)
            return try #require(try Preset.load(preset.path).transition.transition as? GLSLTransition)
        }
        let wide = try load("{kind: glsl, file: mine.glsl}"), narrow = try load("{kind: glsl, file: mine.glsl, reach: 0.25}")
        #expect(wide.values[GLSLTransition.file] == glsl.path)
        let (_, (a, b)) = try Stills.stills.get()
        let w = Stills.width
        for (transition, edge) in [(wide, 0.5), (narrow, 0.25)] {
            let frame = try Self.frame(transition.values[GLSLTransition.file], progress: 0.5, values: transition.values)
            for y in stride(from: 0, to: Stills.height, by: 37) {
                for x in [Int(edge * Double(w)) - 3, Int(edge * Double(w)) + 3] {
                    let expected = x < Int(edge * Double(w)) ? b[y * w + x] : a[y * w + x]
                    #expect(frame[y * w + x] == expected, "reach \(edge), x \(x), y \(y)")
                }
            }
        }
        #expect(throws: PresetError.self) { try load("{kind: glsl, file: mine.glsl, raech: 0.25}") }
        #expect { try load("{kind: glsl, file: mine.glsl, reach: [1, 2]}") } throws: { "\($0)".contains("transition.reach") }
        #expect { try load("{kind: glsl, file: nowhere.glsl}") } throws: { "\($0)".contains("nowhere.glsl") && "\($0)".contains("no such file") }
    }

    @Test("a file that does not compile: the compiler's message at the file's own line")
    func compileError() throws {
        let folder = temporaryFolder()
        let glsl = folder.appendingPathComponent("broken.glsl").path
        try "// line 1\nuniform float a; // = 1.0\nvec4 transition(vec2 uv) {\n  return vec4(a, undefinedThing, 0.0, 1.0);\n}\n"
            .write(toFile: glsl, atomically: true, encoding: .utf8)
        #expect {
            _ = try GLSLPrograms.shared.program(glsl, width: 32, height: 32)
        } throws: { error in
            let text = "\(error)"
            return text.contains("broken.glsl:4:") && text.contains("undefinedThing")
        }
    }

    @Test("uniform declarations as gl-transitions writes them: defaults in line and block comments, vectors filled from one number, Segue's progress left out")
    func declarations() {
        let declared = GLSLUniform.declared(in: """
            uniform float progress;
            uniform float amplitude; // = 30.0
            uniform vec2 direction; // = vec2(1.0, -1.0)
            uniform ivec2 size; // = ivec2(4)
            uniform vec4 shadow_colour /* = vec4(0.,0.,0.,.6) */;
            uniform bool flip; // = true
            uniform highp float speed;
            uniform sampler2D displacementMap;
            """)
        let uniforms = declared.uniforms, odd = declared.unsupported
        #expect(uniforms.map(\.name) == ["amplitude", "direction", "size", "shadow_colour", "flip", "speed"])
        #expect(uniforms.map(\.defaults) == [[30], [1, -1], [4, 4], [0, 0, 0, 0.6], [1], [0]])
        #expect(odd.map(\.name) == ["displacementMap"])
    }
}
