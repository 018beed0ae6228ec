import Foundation

/// Any transition in gl-transitions' GLSL format (a `vec4 transition(vec2 uv)` function over
/// `getFromColor`, `getToColor`, `progress` and `ratio`): a file of the user's own, or one of
/// gl-transitions' 125, run on the CPU by Mesa's llvmpipe (loaded when a render first uses
/// one). Each uniform the file declares is a parameter of the same name, its default the one
/// its comment writes (`uniform float amplitude; // = 30.0`), or zero.
public struct GLSLTransition: PixelTransition, FileTransition {
    public static let name = "glsl"
    public static let summary = "Any transition in gl-transitions' GLSL format, a file of yours or theirs, run on the CPU by Mesa's llvmpipe."
    public static let family = TransitionFamily.shaders
    public static let source = "a GLSL file in gl-transitions' format, run by Mesa's llvmpipe"
    public static let file = Parameter.text("file", default: "", expected: "a GLSL file in gl-transitions' format",
                                            "The GLSL file (relative to the file that names it); its uniforms are parameters too.",
                                            check: GLSLTransition.problem)
    public static let parameters = [file.erased]
    public static let notes = [
        "uniforms: each uniform the file declares is a parameter of the same name (transition.NAME), its default",
        "  the file's own (`uniform float amplitude; // = 30.0` or `/* = vec2(1.0, 0.0) */`), else 0; numbers, whole",
        "  numbers, booleans and vectors ([x, y]). progress and ratio are Segue's; the pages are getFromColor and getToColor.",
        "gl:NAME (or NAME alone) names gl-transitions' file NAME.glsl in the folder SEGUE_GL_TRANSITIONS (or",
        "  --gl-transitions) names, when Segue has no transition of that name; `segue transitions show gl:NAME",
        "  --gl-transitions DIR` lists its uniforms.",
    ]

    public let values: ParameterValues
    /// What draws the file's frames at the canvas's size, opened by the media room before the
    /// render (`opening`); without it a frame is a crossfade.
    public private(set) var supply: (any GLSLSupply)?

    public init(_ values: ParameterValues) {
        self.values = values
        supply = nil
    }

    public func opening(_ files: any TransitionFiles, width: Int, height: Int, limits: Limits) throws -> GLSLTransition {
        let path = values[Self.file]
        guard !path.isEmpty else { throw ExportError.job("a glsl transition needs its file: transition.file names the GLSL file (gl-transitions' format)") }
        var opened = self
        opened.supply = try files.program(path, width: width, height: height)
        return opened
    }

    /// The names a uniform may not have: the `transition` section's own keys.
    static let reserved: Set<String> = ["kind", "duration", "curve", "file"]

    /// Each file's declarations, read and parsed once while the file is unchanged (a template's
    /// rows name the same file): nil for a file that does not read as text.
    private static let declarations = ByFile<GLSLUniform.Declarations?>()

    public static func parameters(in section: ConfigNode) throws -> [AnyParameter] {
        guard let node = section["file"], case let .scalar(path, _) = node.value, !path.isEmpty, Paths.notRegular(path) == nil,
              (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.intValue ?? 0 <= GLSLProgram.maxFileSize,
              let declared = declarations.value(of: path, {
                  (try? String(contentsOfFile: path, encoding: .utf8)).map(GLSLUniform.declared(in:))
              }) ?? nil else { return parameters }
        return parameters + (try uniforms(declared, path: path, origin: node.origin)).map(\.parameter)
    }

    /// The uniforms the file at `path` declares, refused when one cannot be set from a story.
    static func uniforms(_ declared: GLSLUniform.Declarations, path: String, origin: ConfigOrigin) throws -> [GLSLUniform] {
        if let odd = declared.unsupported.first {
            throw PresetError.inside(key: "transition.file", origin: origin,
                                     problem: "\(path) declares uniform \(odd.type) \(odd.name): a GLSL transition's uniforms are numbers, vectors and booleans (its only textures are the two pages)")
        }
        if let clash = declared.uniforms.first(where: { reserved.contains($0.name) }) {
            throw PresetError.inside(key: "transition.file", origin: origin,
                                     problem: "\(path) declares uniform \(clash.type) \(clash.name), which is a key of the transition section itself; rename it")
        }
        return declared.uniforms
    }

    /// What is wrong with `file` as a `file` value, if anything.
    static func problem(_ file: String) -> String? {
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) { return "a GLSL file that exists: there is no such file" }
        if isFolder.boolValue { return "a GLSL file, not a folder" }
        return FileManager.default.isReadableFile(atPath: file) ? nil : "a GLSL file Segue may read (permission denied)"
    }

    /// gl-transitions' file for `name` (`gl:GridFlip`, or `GridFlip` alone; any case) in the
    /// folder SEGUE_GL_TRANSITIONS names, if it has one.
    public static func catalogueFile(_ name: String) -> String? {
        guard let folder = catalogueFolder, !name.isEmpty, !name.contains("/"),
              let files = listings.value(of: folder, { (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? [] }) else { return nil }
        let wanted = catalogueName(name).lowercased() + ".glsl"
        return files.first { $0.lowercased() == wanted }.map { (folder as NSString).appendingPathComponent($0) }
    }

    /// What to do for a `gl:` name that is neither a port nor a file of the catalogue folder
    /// (nil for any other name): where such files are looked for, and what is missing.
    public static func catalogueHint(for name: String) -> String? {
        guard name.lowercased().hasPrefix("gl:") else { return nil }
        let file = catalogueName(name) + ".glsl"
        guard let folder = catalogueFolder else {
            return "to run gl-transitions' own \(file), name a checkout of its transitions/ folder with --gl-transitions DIR or SEGUE_GL_TRANSITIONS"
        }
        return "the gl-transitions folder \(folder) (--gl-transitions or SEGUE_GL_TRANSITIONS) has no \(file)"
    }

    /// The folder of gl-transitions' files: SEGUE_GL_TRANSITIONS (which --gl-transitions sets).
    static var catalogueFolder: String? {
        ProcessInfo.processInfo.environment["SEGUE_GL_TRANSITIONS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A catalogue name without its `gl:`.
    private static func catalogueName(_ name: String) -> String {
        name.lowercased().hasPrefix("gl:") ? String(name.dropFirst(3)) : name
    }

    /// The catalogue folder's files, listed once while the folder is unchanged.
    private static let listings = ByFile<[String]>()

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let refusals = FrameRefusals.current
        guard let supply else { return { y, pages, out in pages.mix(y, into: out, constant: Float(progress)) } }
        let values = values, file = values[Self.file]
        // The frame is drawn whole (by llvmpipe, on threads of its own) when its first row is asked for.
        let drawn = Locked<[UInt32]?>(nil)
        return { y, pages, out in
            let frame = drawn.withLock { frame -> [UInt32] in
                if let frame { return frame }
                let made = supply.draw(from: pages.a, to: pages.b, progress: progress, values: values)
                if let problem = made.problem { refusals?.refuse("the GLSL transition \(file) \(problem) at progress \(String(format: "%.3f", progress))") }
                frame = made.pixels
                return made.pixels
            }
            frame.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + y * width, count: width) }
        }
    }
}

/// What draws a GLSL transition's frames (Mesa's llvmpipe, in the media room).
public protocol GLSLSupply: Sendable {
    /// The frame at `progress` from the two pages (the canvas's size, premultiplied RGBA), the
    /// uniforms set from `values`; `problem` says what made it no picture (NaN), if anything.
    func draw(from: UnsafePointer<UInt32>, to: UnsafePointer<UInt32>, progress: Double, values: ParameterValues) -> (pixels: [UInt32], problem: String?)
}
