import CSegueAV
import Dispatch
import Foundation

/// GLSL transitions' programs, compiled by Mesa for each file and canvas size once and kept.
final class GLSLPrograms: Sendable {
    static let shared = GLSLPrograms()

    private struct Key: Hashable {
        let path: String
        let width: Int, height: Int
    }
    private let kept = Locked([Key: Result<GLSLProgram, ExportError>]())

    /// The program of the GLSL file at `path` for a `width` x `height` canvas; thrown when
    /// the file does not read or compile, or Mesa is missing.
    func program(_ path: String, width: Int, height: Int) throws -> GLSLProgram {
        let key = Key(path: path, width: width, height: height)
        return try kept.withLock { kept in
            if let found = kept[key] { return try found.get() }
            let made = Result { () throws(ExportError) -> GLSLProgram in try GLSLProgram(path: path, width: width, height: height) }
            kept[key] = made
            return try made.get()
        }
    }
}

/// One GLSL file compiled for one canvas size: its frames drawn one at a time (llvmpipe
/// spreads each over threads of its own).
final class GLSLProgram: GLSLSupply {
    private let handle: Locked<OpaquePointer>
    private let uniforms: [GLSLUniform]
    let width: Int, height: Int

    /// The largest GLSL file compiled, in bytes: gl-transitions' files are a few kilobytes, and
    /// Mesa's compiler takes minutes and gigabytes over megabytes of source.
    static let maxFileSize = 256 << 10

    convenience init(path: String, width: Int, height: Int) throws(ExportError) {
        let text: String
        do {
            text = try Paths.text(of: path, limit: Self.maxFileSize, kind: "GLSL file")
        } catch let PresetError.unreadable(_, reason) {
            throw ExportError.glsl(path: path, reason: reason)
        } catch {
            throw ExportError.glsl(path: path, reason: "\(error)")
        }
        try self.init(source: text, name: path, width: width, height: height)
    }

    /// `source` compiled; `name` is its file, which errors name.
    init(source: String, name: String, width: Int, height: Int) throws(ExportError) {
        uniforms = GLSLUniform.declared(in: source).uniforms
        var error = SegueAVError()
        let threads = max(1, CPUBudget.forThisProcess)
        let file = (name as NSString).lastPathComponent
        if let problem = GLSLProgram.shapeProblem(source, file: file) { throw ExportError.glsl(path: name, reason: problem) }
        guard let glsl = segue_glsl_new(source, Int32(width), Int32(height), Int32(threads), &error) else {
            throw ExportError.glsl(path: name, reason: GLSLProgram.located(error.text, file: file, lines: source.split(separator: "\n", omittingEmptySubsequences: false).count))
        }
        handle = Locked(glsl)
        self.width = width
        self.height = height
    }

    deinit { handle.withLock { segue_glsl_free($0) } }

    /// Mesa's log with each place (`0:12(5): error: …`) said as the file's line and column; a
    /// place past the file's `lines` (in the `main` Segue adds after it) as the file's end.
    static func located(_ log: String, file: String, lines: Int = .max) -> String {
        let place = try! NSRegularExpression(pattern: #"(?m)^\d+:(\d+)\((\d+)\): "#)
        var said = log
        for match in place.matches(in: log, range: NSRange(log.startIndex..., in: log)).reversed() {
            guard let whole = Range(match.range, in: log), let line = Range(match.range(at: 1), in: log).flatMap({ Int(log[$0]) }),
                  let column = Range(match.range(at: 2), in: log).map({ String(log[$0]) }) else { continue }
            said.replaceSubrange(whole, with: line > lines ? "\(file): after its last line (a function or a brace left open?): " : "\(file):\(line):\(column): ")
        }
        return said.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "; ")
    }

    /// What keeps `source` from being a GLSL transition, said before Mesa compiles it (whose
    /// messages would be about the lines Segue adds around it), or nil.
    static func shapeProblem(_ source: String, file: String) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let form = "a GLSL transition is gl-transitions' form: a function vec4 transition(vec2 uv) giving the colour at uv, with getFromColor, getToColor, progress and ratio"
        guard lines.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            return "\(file) is empty: \(form)"
        }
        if let version = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#version") }) {
            return "\(file):\(version + 1): a #version line: Segue compiles a transition as GLSL 330 core with the declarations it adds before it, so the file has none (remove the line)"
        }
        if source.range(of: #"\btransition\s*\("#, options: .regularExpression) == nil {
            return "\(file) defines no transition function: \(form)"
        }
        return nil
    }

    /// Seconds a frame may take before it is refused (SEGUE_GLSL_TIMEOUT; 60 by default): a
    /// shader whose loop never ends cannot be stopped inside llvmpipe, so the frame is given up
    /// and the render fails as for any refused frame, the drawing thread left to the process's end.
    static let timeout: Double = ProcessInfo.processInfo.environment["SEGUE_GLSL_TIMEOUT"].flatMap(Double.init).map { max($0, 0.1) } ?? 60

    func draw(from: UnsafePointer<UInt32>, to: UnsafePointer<UInt32>, progress: Double, values: ParameterValues) -> (pixels: [UInt32], problem: String?) {
        let count = width * height, handle = handle, uniforms = uniforms
        let result = Locked<(pixels: [UInt32], problem: String?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        // The pages as addresses: they are read while this thread waits for the drawing one.
        let pages = (from: Int(bitPattern: from), to: Int(bitPattern: to))
        Threads.start(.drawingShader) {
            var pixels = [UInt32](repeating: 0, count: count)
            var error = SegueAVError()
            let status = handle.withLock { glsl -> Int32 in
                for uniform in uniforms {
                    let numbers = uniform.numbers(in: values)
                    _ = segue_glsl_set(glsl, uniform.name, numbers, Int32(numbers.count), uniform.whole ? 1 : 0)
                }
                return segue_glsl_draw(glsl, UnsafePointer(bitPattern: pages.from), UnsafePointer(bitPattern: pages.to), Float(progress), &pixels, &error)
            }
            let problem = status < 0 ? "could not be drawn (\(error.text))" : status == 1 ? "gave pixels that are not numbers (NaN or infinite)" : nil
            result.withLock { $0 = (pixels, problem) }
            done.signal()
        }
        // Waited for in steps of a tenth of a second, so that a signal ends the render at once
        // (the drawing thread left to the process's end, as for a frame that takes too long).
        let deadline = DispatchTime.now() + GLSLProgram.timeout
        while done.wait(timeout: min(deadline, .now() + 0.1)) == .timedOut {
            if Interrupt.isRequested { return ([UInt32](repeating: 0, count: count), "was interrupted") }
            if DispatchTime.now() >= deadline {
                return ([UInt32](repeating: 0, count: count), "ran for more than \(format(GLSLProgram.timeout)) s on one frame (SEGUE_GLSL_TIMEOUT; a loop that does not end?)")
            }
        }
        return result.withLock { $0 }!
    }
}
