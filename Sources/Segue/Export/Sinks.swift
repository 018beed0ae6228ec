import CSegueAV
import Foundation

/// Where rendered frames go. Frames arrive in increasing index order; `repeated` says the
/// frame is the one written just before, unchanged (a still hold), which a sink may use to
/// skip work. `finish` completes the output, `abort` removes whatever was written.
public protocol FrameSink: AnyObject {
    func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws
    func finish() throws
    func abort()
    /// What the sink reads of each frame (its pixels unless a sink says otherwise).
    var reads: FrameForm { get }
}

extension FrameSink {
    public var reads: FrameForm { .rgba }
}

/// A file written under a temporary name in the target's folder and renamed into place on
/// success, so the target path never holds a half-written file. Unless `replace` is set,
/// the rename never replaces a file that appeared at the target meanwhile (another render
/// of the same output): that render's file stays and this one fails.
final class StagedFile {
    let target: String
    let temporary: String
    let replace: Bool

    init(target: String, replace: Bool) throws {
        self.target = target
        self.replace = replace
        try StagedFile.makeFolder(URL(fileURLWithPath: target).deletingLastPathComponent().path, for: target)
        temporary = StagedFile.temporaryName(for: target)
        StagedFile.removeStale(for: target)
    }

    /// The hidden name beside `target` that this process writes it under.
    static func temporaryName(for target: String) -> String {
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".segue-tmp-\(getpid())"
    }

    /// Removes what an earlier run left beside `target` when it was killed outright (its
    /// process is gone), so a SIGKILL leaves no lasting debris: its temporary file, and the
    /// parts of it (`.segue-tmp-PID.part-1-of-2`, a sound chunk's).
    static func removeStale(for target: String) {
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".segue-tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard rest.count == digits.count || rest.dropFirst(digits.count).hasPrefix(".part-"),
                  let pid = Int32(digits), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
    }

    static func makeFolder(_ folder: String, for target: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ExportError.output(path: target, reason: "cannot create the folder \(folder)")
        }
    }

    /// Moves the finished file into place, with `fingerprint` kept beside it in `sidecar`.
    /// An old sidecar goes first, so no output is ever seen with a fingerprint it was not made from.
    func commit(sidecar: String? = nil, fingerprint: String? = nil) throws {
        if let sidecar { try? FileManager.default.removeItem(atPath: sidecar) }
        do {
            try StagedFile.move(temporary, to: target, replace: replace)
        } catch {
            discard()
            throw error
        }
        if let sidecar, let fingerprint {
            try StagedFile.writeAtomically(fingerprint + "\n", to: sidecar)
        }
    }

    /// Renames `from` to `to`; without `replace`, fails rather than replace what is at `to`.
    static func move(_ from: String, to: String, replace: Bool) throws {
        if replace {
            guard rename(from, to) == 0 else { throw ExportError.output(path: to, reason: String(cString: strerror(errno))) }
            return
        }
        let result = segue_rename_noreplace(from, to)
        if result == -EEXIST { throw ExportError.outputTaken(to) }
        guard result == 0 else { throw ExportError.output(path: to, reason: String(cString: strerror(-result))) }
    }

    /// Writes a small text file under a temporary name, then renames it into place.
    static func writeAtomically(_ text: String, to path: String) throws {
        let temporary = temporaryName(for: path)
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
            throw ExportError.output(path: path, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw ExportError.output(path: path, reason: reason)
        }
    }

    func discard() { try? FileManager.default.removeItem(atPath: temporary) }
}

/// One PNG per frame, `frame-NNNNN.png` by frame index, into a folder. The frames are
/// written into a temporary folder beside it and moved in on success.
public final class PNGSink: FrameSink {
    private let target: String
    private let staging: String
    private let replace: Bool
    private let fingerprint: String?
    private let level: Int?
    private var written: [String] = []
    private var done = false

    /// `fingerprint`, if given, is kept in the folder as `.segue-fingerprint`; `level` is
    /// zlib's (nil: FFmpeg's default).
    public init(folder: String, fingerprint: String? = nil, replace: Bool = false, level: Int? = nil) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
            throw ExportError.output(path: folder, reason: "it is a file; PNG frames need a folder")
        }
        target = folder
        self.level = level
        self.replace = replace
        self.fingerprint = fingerprint
        staging = StagedFile.temporaryName(for: folder)
        StagedFile.removeStale(for: folder)
        try StagedFile.makeFolder(staging, for: folder)
    }

    deinit { abort() }

    public static func fileName(index: Int) -> String { String(format: "frame-%05d.png", index) }

    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        let name = PNGSink.fileName(index: index)
        do {
            try frame.writePNG(to: staging + "/" + name, level: level)
        } catch ExportError.output(_, let reason) {
            throw ExportError.output(path: target, reason: "\(name): \(reason)")
        }
        written.append(name)
    }

    public func finish() throws {
        done = true
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let sidecar = target + "/.segue-fingerprint"
        if let fingerprint {
            try StagedFile.writeAtomically(fingerprint + "\n", to: staging + "/.segue-fingerprint")
        }
        if !FileManager.default.fileExists(atPath: target) {
            do {
                try StagedFile.move(staging, to: target, replace: false)
                return
            } catch ExportError.outputTaken(_) where replace {
                // Another writer made the folder meanwhile; replacing is allowed: go on below.
            }
        }
        // The target folder exists (empty, or replacing it was allowed): its old frames and
        // fingerprint go first, the new fingerprint last.
        try? FileManager.default.removeItem(atPath: sidecar)
        for old in (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? [] where old.hasPrefix("frame-") && old.hasSuffix(".png") {
            try? FileManager.default.removeItem(atPath: target + "/" + old)
        }
        for name in written + (fingerprint == nil ? [] : [".segue-fingerprint"]) {
            guard rename(staging + "/" + name, target + "/" + name) == 0 else {
                throw ExportError.output(path: target + "/" + name, reason: String(cString: strerror(errno)))
            }
        }
    }

    public func abort() {
        guard !done else { return }
        done = true
        try? FileManager.default.removeItem(atPath: staging)
    }
}

/// A stream of bytes to a file, staged beside it and renamed into place by `commit`, or to
/// standard output (`-`).
final class ByteOutput {
    private let file: StagedFile?
    private let handle: FileHandle
    private var done = false

    init(path: String, replace: Bool) throws {
        if path == "-" {
            file = nil
            handle = FileHandle.standardOutput
        } else {
            let staged = try StagedFile(target: path, replace: replace)
            guard FileManager.default.createFile(atPath: staged.temporary, contents: nil),
                  let h = FileHandle(forWritingAtPath: staged.temporary) else {
                throw ExportError.output(path: path, reason: String(cString: strerror(errno)))
            }
            file = staged
            handle = h
        }
    }

    /// The path written, or "standard output".
    var name: String { file?.target ?? "standard output" }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = Glibc.write(handle.fileDescriptor, bytes.baseAddress! + rest.startIndex, rest.count)
            if written < 0 {
                if errno == EINTR { continue }
                throw ExportError.output(path: name, reason: String(cString: strerror(errno)))
            }
            rest = rest.dropFirst(written)
        }
    }

    /// Closes the file and moves it into place, `fingerprint` kept in the sidecar of `format`.
    func commit(format: OutputFormat, fingerprint: String?) throws {
        done = true
        guard let file else { return }
        try handle.close()
        try file.commit(sidecar: Fingerprint.sidecar(for: file.target, format: format), fingerprint: fingerprint)
    }

    /// Removes what was written (a file; what went to standard output stays).
    func discard() {
        guard !done else { return }
        done = true
        if let file {
            try? handle.close()
            file.discard()
        }
    }
}

/// FFmpeg's framemd5 format of the RGBA frames: a header, then one line per frame with its
/// index as dts and pts and the MD5 of its bytes. Written to a file (staged) or to stdout.
public final class FrameMD5Sink: FrameSink {
    private let output: ByteOutput
    private let fingerprint: String?
    private var pending = ""
    private var lastDigest = ""

    /// `path` "-" writes to standard output. `fingerprint`, if given, is kept beside the
    /// file as `.NAME.segue-fingerprint`.
    public init(path: String, width: Int, height: Int, fps: FrameRate, fingerprint: String? = nil, replace: Bool = false) throws {
        self.fingerprint = fingerprint
        output = try ByteOutput(path: path, replace: replace)
        pending = FrameMD5Sink.header(width: width, height: height, fps: fps)
    }

    deinit { abort() }

    public static func header(width: Int, height: Int, fps: FrameRate) -> String {
        """
        #format: frame checksums
        #version: 2
        #hash: MD5
        #tb 0: \(fps.denominator)/\(fps.numerator)
        #media_type 0: video
        #codec_id 0: rawvideo
        #dimensions 0: \(width)x\(height)
        #sar 0: 1/1
        #stream#, dts,        pts, duration,     size, hash

        """
    }

    /// One frame's line, spaced as FFmpeg spaces it.
    public static func line(index: Int, size: Int, md5: String) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
        return "0, \(pad(index, 10)), \(pad(index, 10)), \(pad(1, 8)), \(pad(size, 8)), \(md5)\n"
    }

    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        let digest = repeated ? lastDigest : frame.withUnsafeBytes { md5Hex($0) }
        lastDigest = digest
        pending += FrameMD5Sink.line(index: index, size: frame.width * frame.height * 4, md5: digest)
        if pending.utf8.count > 1 << 14 { try flush() }
    }

    private func flush() throws {
        try Array(pending.utf8).withUnsafeBytes { try output.write($0) }
        pending = ""
    }

    public func finish() throws {
        do {
            try flush()
            try output.commit(format: .framemd5, fingerprint: fingerprint)
        } catch {
            abort()
            throw error
        }
    }

    public func abort() { output.discard() }
}

/// Raw yuv420p frames, one after another with no header: exactly what the MP4 encoder is
/// given (BT.709, limited range, chroma from each 2x2 block), for another encoder to read
/// (FFmpeg: `-f rawvideo -pix_fmt yuv420p -s WIDTHxHEIGHT -r FPS -i FILE`). To a file
/// (staged) or to stdout.
public final class YUVSink: FrameSink {
    private let output: ByteOutput
    private let fingerprint: String?
    /// The last frame's planes: Y, then Cb, then Cr, each row packed.
    private var planes: [UInt8] = []
    /// Where a frame without a yuv420p copy is converted.
    private var spare: YUVFrame?

    /// `path` "-" writes to standard output. `fingerprint`, if given, is kept beside the
    /// file as `.NAME.segue-fingerprint`.
    public init(path: String, width: Int, height: Int, fingerprint: String? = nil, replace: Bool = false) throws {
        precondition(width % 2 == 0 && height % 2 == 0, "yuv420p needs an even width and height")
        self.fingerprint = fingerprint
        planes.reserveCapacity(width * height * 3 / 2)
        output = try ByteOutput(path: path, replace: replace)
    }

    deinit { abort() }

    public var reads: FrameForm { .yuv420p }

    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {
        if !repeated {
            planes.removeAll(keepingCapacity: true)
            try frame.yuv420p(spare: &spare, for: output.name).append(to: &planes)
        }
        try planes.withUnsafeBytes { try output.write($0) }
    }

    public func finish() throws {
        do {
            try output.commit(format: .yuv, fingerprint: fingerprint)
        } catch {
            abort()
            throw error
        }
    }

    public func abort() { output.discard() }
}

/// Drops every frame: for measuring rendering alone, drawn as an export draws its frames
/// (band by band in a scratch buffer), neither kept nor converted.
public final class NullSink: FrameSink {
    public init() {}
    public var reads: FrameForm { .none }
    public func write(_ frame: FrameBuffer, index: Int, repeated: Bool) throws {}
    public func finish() throws {}
    public func abort() {}
}
