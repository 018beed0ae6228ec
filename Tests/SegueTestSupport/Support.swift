// What both test modules use: the repository's files, fresh folders, and running programs
// (the installed binary, FFmpeg's tools, pango-view) one way.
import Foundation
import Synchronization

/// The repository's root folder.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A bundled example input.
public func example(_ name: String) -> String { repositoryRoot.appendingPathComponent("Examples/\(name)").path }

/// The presets Segue ships: the names of `Presets/*.yaml`, sorted, so a new preset needs no test edits.
public let shippedPresets: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Presets").path)) ?? [])
    .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()

/// A fresh empty folder for one test, in `TMPDIR` (the test scripts remove it when they end).
public func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("segue-tests-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The names in a folder, sorted; none for a folder that is not there.
public func files(in folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
}

/// How a program ended and what it printed.
public struct Run: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// A program that ended with a status other than 0, and what it said.
public struct ToolFailed: Error, CustomStringConvertible {
    public var command: [String]
    public var run: Run
    public var description: String { "\(command.joined(separator: " ")) exited with \(run.status): \(run.stderr)" }
}

/// Runs a program to completion, capturing what it prints: its standard output through a
/// pipe read here, its standard error into a file (so neither can fill and block it, and no
/// second thread reads).
public func run(_ executable: String, _ arguments: [String]) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("segue-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errors) }
    let errorFile = try FileHandle(forWritingTo: errors)
    defer { try? errorFile.close() }
    process.standardOutput = out
    process.standardError = errorFile
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
               stderr: String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self))
}

/// Runs `executable` in `folder` with `environment` added (and SEGUE_PRESETS removed unless
/// given), as a user's shell would.
public func run(_ executable: String, _ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> Run {
    var env = ProcessInfo.processInfo.environment
    env["SEGUE_PRESETS"] = nil
    env.merge(environment) { $1 }
    let assignments = env.map { "\($0.key)=\($0.value)" }
    return try run("/usr/bin/env", ["-i", "-C", folder.path] + assignments + [executable] + arguments)
}

/// Runs a program found on PATH to completion.
public func tool(_ name: String, _ arguments: [String]) throws -> Run { try run("/usr/bin/env", [name] + arguments) }

/// Runs a program found on PATH that must succeed: its failure is thrown with what it said.
@discardableResult
public func succeed(_ name: String, _ arguments: [String]) throws -> Run {
    let result = try tool(name, arguments)
    guard result.status == 0 else { throw ToolFailed(command: [name] + arguments, run: result) }
    return result
}

/// Runs FFmpeg quietly, overwriting its output; its failure is thrown.
public func ffmpeg(_ arguments: [String]) throws {
    try succeed("ffmpeg", ["-v", "error", "-y"] + arguments)
}

/// Makes `name` in `folder` with FFmpeg (`arguments` before the output's path); its path.
@discardableResult
public func ffmpegMake(_ name: String, _ arguments: [String], in folder: URL) throws -> String {
    let path = folder.appendingPathComponent(name).path
    try ffmpeg(arguments + [path])
    return path
}

/// A clip made by FFmpeg's testsrc2 (H.264), `seconds` long, in `folder`.
public func testClip(_ name: String, seconds: Double, size: String = "160x120", rate: Int = 30, in folder: URL) throws -> String {
    try ffmpegMake(name, ["-f", "lavfi", "-i", "testsrc2=s=\(size):r=\(rate):d=\(seconds)", "-c:v", "libx264", "-pix_fmt", "yuv420p"], in: folder)
}

/// A program started for the test to watch while it runs (signal it, read /proc); what it
/// writes to standard error goes to a file, read once it ends.
public struct Launched {
    public let process: Process
    private let errors: URL

    /// Starts `executable` with `arguments`, in `folder` if given.
    public init(_ executable: String, _ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let folder { process.currentDirectoryURL = folder }
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("segue-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    /// Waits for it to end for at most `polls` looks 20 ms apart (a bound on a hang, not a
    /// measure): its status and standard error, or nil after killing it when it did not end.
    public func finish(polls: Int) -> (status: Int32, stderr: String)? {
        for _ in 0..<polls where process.isRunning { usleep(20_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            _ = finish()
            return nil
        }
        return finish()
    }

    /// Waits for it to end: its status and what it wrote to standard error.
    public func finish() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: errors) }
        return (process.terminationStatus, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }
}

/// Which tier of the suite this run is: `scripts/test --fast` sets `SEGUE_TEST_TIER=fast`,
/// and the tests that need one of the whole suite's references (FFmpeg 7's xfade, llvmpipe,
/// Chromium, Slurm, a Debian root, the package and the image) are then skipped; any other
/// value, or none, runs everything. docs/testing.md lists what each tier needs.
public enum Tier {
    public static let fast = ProcessInfo.processInfo.environment["SEGUE_TEST_TIER"] == "fast"

    /// Why a test is left to the whole suite: it needs `needs`.
    public static func wholeSuiteOnly(_ needs: String) -> String { "the whole suite only (scripts/test): needs \(needs)" }
}

/// Reference programs from PyPI, in the virtual environment `scripts/setup` makes once and
/// keeps in its cache (`scripts/setup --cache-path`: `$SEGUE_CACHE`, else `~/.cache/segue`): FFmpeg's newest release
/// (imageio-ffmpeg's static build), whose xfade has every transition Segue ports, where
/// Debian 12's FFmpeg 5.1 lacks twelve and reads memory it never set in `fadegrays`;
/// moderngl with numpy, which runs the gl-transitions files through Mesa's llvmpipe; and
/// Playwright, which drives Debian's Chromium. A test never installs them: one whose tool is
/// missing fails at once, naming the command that makes it.
public enum ReferenceTools {
    /// The folder `scripts/setup` keeps the tools in: `test-tools` in its cache, found as it finds it.
    public static let folder: String = {
        let environment = ProcessInfo.processInfo.environment
        func given(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let cache = given("SEGUE_CACHE") ?? ((given("XDG_CACHE_HOME") ?? (NSHomeDirectory() + "/.cache")) + "/segue")
        return cache + "/test-tools"
    }()

    /// A tool that is not there, and the command that makes it.
    public struct Missing: Error, CustomStringConvertible {
        public var what: String
        public var description: String {
            "\(what) is not in \(ReferenceTools.folder): run scripts/setup (it makes the test tools once and keeps them)"
        }
    }

    /// The virtual environment's Python, if it imports `modules`.
    private static func python(importing modules: String) throws -> String {
        let python = folder + "/venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw Missing(what: "the virtual environment (venv/bin/python)") }
        guard try tool(python, ["-c", "import \(modules)"]).status == 0 else { throw Missing(what: "Python's \(modules)") }
        return python
    }

    private static let plain = Result<String, Error> { try python(importing: "imageio_ffmpeg") }
    private static let withGL = Result<String, Error> { try python(importing: "moderngl, numpy") }
    private static let withPlaywright = Result<String, Error> { try python(importing: "playwright") }
    private static let withNumpy = Result<String, Error> { try python(importing: "numpy") }
    private static let withMCP = Result<String, Error> { try python(importing: "mcp") }
    private static let withServeTools = Result<String, Error> { try python(importing: "httpx, schemathesis") }

    /// The virtual environment's Python with the MCP SDK (a real client of `segue mcp`).
    public static func pythonWithMCP() throws -> String { try withMCP.get() }

    /// The Python with httpx and schemathesis (segue serve's clients).
    public static func pythonWithServeTools() throws -> String { try withServeTools.get() }

    /// The virtual environment's Python with numpy (reference formulas computed on arrays).
    public static func pythonWithNumpy() throws -> String { try withNumpy.get() }

    /// The virtual environment's Python.
    public static func python() throws -> String { try plain.get() }

    /// The virtual environment's Python with moderngl and numpy: OpenGL through EGL, which
    /// Mesa's llvmpipe runs on the CPU, without a display.
    public static func pythonWithGL() throws -> String { try withGL.get() }

    /// The virtual environment's Python with Playwright, which drives Debian's Chromium
    /// (`executable_path`; its own browsers are never downloaded).
    public static func pythonWithPlaywright() throws -> String { try withPlaywright.get() }

    private static let ffmpeg = Result<String, Error> {
        let found = try succeed(try python(), ["-c", "import imageio_ffmpeg; print(imageio_ffmpeg.get_ffmpeg_exe())"])
        return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The path of FFmpeg's newest static build, from PyPI's imageio-ffmpeg.
    public static func newestFFmpeg() throws -> String { try ffmpeg.get() }
}

/// Runs `body` on a thread of its own and waits for it at most `minutes`: a bound on a hang,
/// not a measure of speed. Unlike a test's time limit, it does not count the time the test
/// waited for Swift Testing's threads while other tests held them (a loaded run starts and
/// reports a test minutes apart), only the body's. Its result, or nil (the body left running)
/// when it did not end in time.
public func endsWithin<T: Sendable>(minutes: Int = 5, _ body: @escaping @Sendable () -> T) -> T? {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<T?>(nil)
    Thread {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }.start()
    guard done.wait(timeout: .now() + .seconds(60 * minutes)) == .success else { return nil }
    return result.withLock { $0 }
}

/// A click track FFmpeg makes (`aevalsrc`) at `bpm`, `seconds` long: a 1 kHz click on every
/// beat, the first of each bar of `meter` beats three times as loud; with `swing`, a quieter
/// click two thirds into each beat (swung eighths). `gain` changes the file's content (and so
/// its digest) without moving a click.
public func clickTrack(bpm: Double, meter: Int = 4, seconds: Double = 20, swing: Bool = false, gain: Double = 0.25, in folder: URL) throws -> String {
    let p = 60 / bpm
    var expression = "(1+2*lt(mod(t\\,\(p * Double(meter)))\\,0.01))*\(gain)*sin(2*PI*1000*t)*exp(-mod(t\\,\(p))*200)"
    if swing { expression += "+0.12*sin(2*PI*1500*t)*exp(-mod(t-\(p * 2 / 3)\\,\(p))*200)*gte(mod(t\\,\(p))\\,\(p * 2 / 3))" }
    return try ffmpegMake("clicks-\(bpm)\(swing ? "-swing" : "")-\(gain).wav", ["-f", "lavfi", "-i", "aevalsrc='\(expression)':s=44100:d=\(seconds)"], in: folder)
}
