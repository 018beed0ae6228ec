import Foundation
@_exported import SegueTestSupport
import Testing

/// What this machine lets the tests do as root, asked once: the tests that need it are
/// skipped, with the reason, where it cannot.
enum Privileges {
    /// Whether a tmpfs can be mounted (root, outside a container that forbids mounts).
    static let canMountTmpfs: Bool = {
        let point = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: point) }
        guard (try? tool("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", point.path]))?.status == 0 else { return false }
        _ = try? tool("umount", [point.path])
        return true
    }()

    /// The cgroup base folder, quota file and one-CPU quota where a cgroup can be made here; nil where it cannot.
    static let cgroup: (base: String, quotaFile: String, quota: String)? = {
        let v1 = "/sys/fs/cgroup/cpu", v2 = "/sys/fs/cgroup"
        let found = FileManager.default.fileExists(atPath: v2 + "/cgroup.controllers")
            ? (base: v2, quotaFile: "cpu.max", quota: "100000 100000") : (base: v1, quotaFile: "cpu.cfs_quota_us", quota: "100000")
        let probe = found.base + "/segue-probe-\(UUID().uuidString.prefix(8))"
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: false)) != nil else { return nil }
        defer { _ = rmdir(probe) }
        return (try? found.quota.write(toFile: probe + "/" + found.quotaFile, atomically: false, encoding: .utf8)) != nil ? found : nil
    }()
}

extension Trait where Self == ConditionTrait {
    /// Runs only in the whole suite (`scripts/test`), not in `scripts/test --fast`: `needs`
    /// names the whole suite's reference the test needs (docs/testing.md lists them).
    static func wholeSuite(_ needs: String) -> Self { .enabled(if: !Tier.fast, Comment(rawValue: Tier.wholeSuiteOnly(needs))) }
}

/// The `segue` the tests run: `SEGUE_BINARY` (scripts/test links the build's own with the Swift
/// runtime inside it, as installed), else the executable built beside the test bundle.
let segueBinary: String = {
    if let given = ProcessInfo.processInfo.environment["SEGUE_BINARY"], !given.isEmpty { return given }
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("segue").path
}()

func segue(_ arguments: String...) throws -> Run { try run(segueBinary, arguments) }
func segue(_ arguments: [String]) throws -> Run { try run(segueBinary, arguments) }

/// The four-letter types of the top-level boxes of an MP4 file, in order.
func topLevelBoxes(_ path: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var boxes: [String] = []
    var offset = 0
    while offset + 8 <= data.count {
        var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
        if size == 1 { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
        guard size >= 8 else { break }
        offset += size
    }
    return boxes
}

@Suite("segue render, run as a user runs it")
struct RenderCLITests {
    @Test("the README's command writes an MP4 that ffprobe accepts: h264, yuv420p, bt709, 1080x1920, every frame, moov first")
    func mp4() throws {
        let out = temporaryFolder().appendingPathComponent("story.mp4").path
        let result = try segue("render", "--preset", "stories-cube", example("a.jpg"), example("b.png"), example("c.webp"), "-o", out)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        let silent = try tool("ffprobe", ["-v", "error", out])
        #expect(silent.status == 0 && silent.stdout.isEmpty && silent.stderr.isEmpty)

        let probe = try tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                         "-show_entries", "stream=codec_name,pix_fmt,width,height,color_space,color_primaries,color_transfer,nb_read_frames,r_frame_rate",
                                         "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1", out])
        let fields = Dictionary(uniqueKeysWithValues: probe.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        })
        #expect(fields["codec_name"] == "h264")
        #expect(fields["pix_fmt"] == "yuv420p")
        #expect(fields["width"] == "1080" && fields["height"] == "1920")
        #expect(fields["color_space"] == "bt709" && fields["color_primaries"] == "bt709" && fields["color_transfer"] == "bt709")
        #expect(fields["r_frame_rate"] == "30/1")
        // 3 images: 3 x 2 s + 2 x 0.5 s = 7 s, 210 frames.
        #expect(fields["nb_read_frames"] == "210")
        #expect(fields["duration"].flatMap(Double.init).map { abs($0 - 7) < 0.001 } == true)

        let boxes = try topLevelBoxes(out)
        let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "\(boxes)")
    }

    @Test("MP4s carry no edit list: the first frame at time 0, every frame, the exact duration, ffprobe silent",
          arguments: ["h264", "hevc"])
    func noEditList(_ codec: String) throws {
        let out = temporaryFolder().appendingPathComponent("story.mp4").path
        let result = try segue("render", "--preset", "stories-cube", "--size", "180x320", "--set", "canvas.scale=0.5", "--set", "hold=0.4",
                               "--codec", codec, example("a.jpg"), example("b.png"), "-o", out)
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let elst = Array("elst".utf8)
        let found = (0..<(bytes.count - 4)).contains { i in bytes[i] == elst[0] && Array(bytes[i..<i + 4]) == elst }
        #expect(!found, "an elst box is in the file")
        let warnings = try tool("ffprobe", ["-v", "warning", out])
        #expect(warnings.status == 0 && warnings.stderr.isEmpty, "\(warnings.stderr)")
        let probe = try tool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                         "-show_entries", "stream=start_time,nb_read_frames,duration", "-of", "default=noprint_wrappers=1", out])
        // 2 x 0.4 s + 0.5 s = 1.3 s: 39 frames.
        #expect(probe.stdout.contains("start_time=0.000000") && probe.stdout.contains("nb_read_frames=39") && probe.stdout.contains("duration=1.300000"),
                "\(probe.stdout)")
        let first = try tool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-read_intervals", "%+#1",
                                         "-of", "csv=p=0", out])
        #expect(first.stdout.hasPrefix("0.000000"), "first frame at \(first.stdout)")
    }

    @Test("the framemd5 segue prints equals FFmpeg's framemd5 of the PNG frames of the same render")
    func framemd5MatchesFFmpeg() throws {
        let folder = temporaryFolder()
        let frames = folder.appendingPathComponent("frames").path
        let common = ["render", "--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=0.3", "--fps", "24",
                      example("a.jpg"), example("c.webp"), example("b.png")]
        let png = try segue(common + ["-o", frames])
        #expect(png.status == 0, "\(png.stderr)")
        // 3 x 0.3 + 2 x 0.5 = 1.9 s at 24 fps: 46 frames, named by index.
        let names = try FileManager.default.contentsOfDirectory(atPath: frames).sorted()
        #expect(names.count == 46 && names.first == "frame-00000.png" && names.last == "frame-00045.png")

        let ours = try segue(common + ["-o", "-"])
        #expect(ours.status == 0, "\(ours.stderr)")
        let theirs = try tool("ffmpeg", ["-v", "error", "-framerate", "24", "-i", frames + "/frame-%05d.png",
                                          "-pix_fmt", "rgba", "-f", "framemd5", "-"])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        let withoutSoftware = theirs.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("#software") }.joined(separator: "\n")
        #expect(ours.stdout == withoutSoftware)
        #expect(ours.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 46)
    }

    @Test("crossfade equals FFmpeg's xfade fade of the same two hold frames, within rounding")
    func crossfadeMatchesXfade() throws {
        let folder = temporaryFolder()
        let frames = folder.appendingPathComponent("frames").path
        let r = try segue("render", "--preset", "crossfade", "--size", "90x160", "--set", "canvas.scale=0.25", "--set", "hold=1",
                          example("a.jpg"), example("b.png"), "-o", frames)
        #expect(r.status == 0, "\(r.stderr)")
        // 2 x 1 s + 0.5 s at 30 fps: frames 30...44 fade, 75 in all. Give xfade the two still screens.
        func raw(_ arguments: [String]) throws -> [UInt8] {
            let out = folder.appendingPathComponent("raw-\(UUID().uuidString)").path
            let run = try tool("ffmpeg", ["-v", "error"] + arguments + ["-f", "rawvideo", "-pix_fmt", "rgba", out])
            #expect(run.status == 0, "\(run.stderr)")
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        let ours = try raw(["-framerate", "30", "-i", frames + "/frame-%05d.png"])
        let theirs = try raw(["-loop", "1", "-framerate", "30", "-t", "1.5", "-i", frames + "/frame-00000.png",
                              "-loop", "1", "-framerate", "30", "-t", "1.5", "-i", frames + "/frame-00074.png",
                              "-filter_complex", "[0]format=rgba[a];[1]format=rgba[b];[a][b]xfade=transition=fade:duration=0.5:offset=1"])
        let frameSize = 90 * 160 * 4
        #expect(ours.count == 75 * frameSize && theirs.count == 75 * frameSize)
        var largest = 0
        for i in 0..<min(ours.count, theirs.count) { largest = max(largest, abs(Int(ours[i]) - Int(theirs[i]))) }
        // Both round, at different steps: within 2 of 255.
        #expect(largest <= 2, "largest difference \(largest)")
        // The middle frame is a real mix, unlike either end.
        let middle = Array(ours[37 * frameSize..<38 * frameSize])
        #expect(middle != Array(ours[0..<frameSize]) && middle != Array(ours[74 * frameSize..<75 * frameSize]))
    }

    @Test("yuv output is what the MP4's encoder is given: FFmpeg encoding it with Segue's settings writes the same H.264 bytes")
    func rawFrames() throws {
        let folder = temporaryFolder()
        let common = ["render", "--preset", "stories-cube", "--size", "180x320", "--set", "canvas.scale=0.5", "--set", "hold=0.3",
                      "--set", "encode.threads=2", example("a.jpg"), example("c.webp"), example("b.png")]
        let mp4 = folder.appendingPathComponent("story.mp4").path, raw = folder.appendingPathComponent("story.yuv").path
        for output in [mp4, raw] {
            let r = try segue(common + ["-o", output])
            #expect(r.status == 0, "\(r.stderr)")
        }
        // 3 x 0.3 + 2 x 0.5 = 1.9 s at 30 fps: 57 frames of 180x320, 1.5 bytes a pixel, no header.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        #expect(bytes.count == 57 * 180 * 320 * 3 / 2)
        // To standard output (as a pipe into another encoder reads it), the same bytes.
        let again = folder.appendingPathComponent("again.yuv").path
        let piped = try run("/bin/sh", ["-c", "'\(segueBinary)' \(common.map { "'\($0)'" }.joined(separator: " ")) --format yuv -o - > '\(again)'"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == bytes)
        // The preset's encoder settings in FFmpeg's words: the H.264 stream comes out byte for byte
        // (x264 kept off its AVX-512 routines, as Segue keeps it, on a CPU that has them).
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let params = "sync-lookahead=0" + (cpu.contains(" avx512f ") || cpu.contains(" avx512f\n") ? ":asm=AVX2" : "")
        let theirs = folder.appendingPathComponent("theirs.mp4").path
        let encoded = try tool("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "180x320", "-r", "30",
                                          "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv",
                                          "-i", raw, "-vf", "setsar=1", "-flags", "+bitexact+cgop", "-c:v", "libx264", "-preset", "veryfast",
                                          "-crf", "20", "-threads", "2", "-x264-params", params, theirs])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        func stream(_ path: String) throws -> Data {
            let out = folder.appendingPathComponent(UUID().uuidString + ".h264").path
            let r = try tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-bsf:v", "h264_mp4toannexb", out])
            #expect(r.status == 0, "\(r.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: out))
        }
        let ours = try stream(mp4), same = try stream(theirs)
        #expect(ours.count > 1000 && ours == same)
    }

    @Test("an MP4 export composes and prepares on threads at nice +10, its encoder at the caller's priority; other outputs lower nothing")
    func yieldsToTheEncoder() throws {
        /// The nice value of each thread of `pid` seen while it runs, polled from /proc.
        func niceness(_ arguments: [String]) throws -> (main: Set<Int>, others: Set<Int>, status: Int32) {
            let render = try Launched(segueBinary, arguments), process = render.process
            let pid = Int(process.processIdentifier)
            var main = Set<Int>(), others = Set<Int>()
            while process.isRunning {
                for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
                    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                          let close = stat.lastIndex(of: ")") else { continue }
                    // After "pid (comm)": state is field 3, nice field 19.
                    let fields = stat[stat.index(after: close)...].split(separator: " ")
                    guard fields.count > 16, let nice = Int(fields[16]) else { continue }
                    if Int(task) == pid { main.insert(nice) } else { others.insert(nice) }
                }
                usleep(5_000)
            }
            return (main, others, render.finish().status)
        }
        let own = Int(getpriority(0, 0))
        let folder = temporaryFolder()
        let common = ["render", "--preset", "stories-cube", "--size", "540x960", "--set", "canvas.scale=0.5", "--set", "hold=1",
                      "--threads", "2", example("a.jpg"), example("c.webp"), example("b.png"), example("a.jpg")]
        let mp4 = try niceness(common + ["-o", folder.appendingPathComponent("story.mp4").path])
        #expect(mp4.status == 0)
        #expect(mp4.main == [own], "the calling thread (the encoder's) keeps its priority: \(mp4.main)")
        #expect(mp4.others.contains(min(19, own + 10)), "threads seen: \(mp4.others)")
        let null = try niceness(common + ["--format", "null", "-o", "-"])
        #expect(null.status == 0)
        #expect(null.main == [own] && null.others.allSatisfy { $0 <= own }, "threads seen: \(null.others)")
    }

    @Test("--frames picks frame indices for png and framemd5 output")
    func frameSelection() throws {
        let out = temporaryFolder().appendingPathComponent("some").path
        let r = try segue("render", "--size", "90x160", "--set", "canvas.scale=0.25", "--frames", "0,10,20-22",
                          example("a.jpg"), example("b.png"), "-o", out)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted()
                == ["frame-00000.png", "frame-00010.png", "frame-00020.png", "frame-00021.png", "frame-00022.png"])
        let sums = try segue("render", "--size", "90x160", "--set", "canvas.scale=0.25", "--frames", "3,70",
                             example("a.jpg"), example("b.png"), "-o", "-")
        #expect(sums.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.prefix(25) }
                == ["0,          3,          3", "0,         70,         70"])
        // The closing line counts frames in words that fit the number.
        #expect(r.stderr.contains("(5 frames, "), "\(r.stderr)")
        let one = try segue("render", "--size", "90x160", "--set", "canvas.scale=0.25", "--frames", "10",
                            example("a.jpg"), example("b.png"), "-o", out + "-one")
        #expect(one.status == 0 && one.stderr.contains("(1 frame, "), "\(one.stderr)")
    }

    @Test("usage and validation errors exit 2 with a message naming the problem")
    func validationErrors() throws {
        let folder = temporaryFolder()
        let out = folder.appendingPathComponent("x.mp4").path
        let cases: [([String], String)] = [
            (["render", "--size", "91x160", example("a.jpg"), "-o", out], "canvas.size 91x160: MP4 video (yuv420p) needs an even width and height"),
            (["render", "--set", "transition.durration=1", example("a.jpg"), "-o", out], "unknown key 'transition.durration'. Did you mean 'duration'?"),
            (["render", "--set", "transition.kind=cubee", example("a.jpg"), "-o", out], "'transition.kind' is 'cubee' (expected one of: stories-cube"),
            (["render", "--preset", "nope", example("a.jpg"), "-o", out], "no preset named 'nope' (shipped presets: " + shippedPresets.joined(separator: ", ")),
            (["render", "--size", "big", example("a.jpg"), "-o", out], "The value 'big' is invalid for '--size <WxH>': expected WIDTHxHEIGHT"),
            (["render", example("a.jpg"), "-o", folder.appendingPathComponent("x.avi").path], "cannot tell the format of"),
            (["render", "--frames", "0,500", example("a.jpg"), "-o", "-"], "frame 500 is past the last frame (59)"),
            (["render", "--frames", "0,10", example("a.jpg"), "-o", out], "--frames selects frames for png, framemd5, yuv and sheet output"),
            (["render", "--size", "91x160", example("a.jpg"), "-o", folder.appendingPathComponent("x.yuv").path], "canvas.size 91x160: yuv420p output needs an even width and height"),
            (["render", "-o", out], "Give at least one input image (or --story FILE)."),
            (["render", example("a.jpg")], "Missing expected argument '-o <OUTPUT>'"),
        ]
        for (arguments, expected) in cases {
            let r = try segue(arguments)
            #expect(r.status == 2, "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(expected), "\(arguments): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("a file that is not an image exits 2 as unsupported, names the file and leaves nothing at the output path")
    func runtimeErrors() throws {
        let folder = temporaryFolder()
        let bogus = folder.appendingPathComponent("photo.jpg").path
        try "not a picture".write(toFile: bogus, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("x.mp4").path
        let r = try segue("render", "--size", "90x160", "--set", "canvas.scale=0.25", example("a.jpg"), bogus, "-o", out)
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(bogus): not an image Segue can read (JPEG, PNG, WebP, ...): its content is no image format"), "\(r.stderr)")
        let missing = try segue("render", folder.appendingPathComponent("gone.png").path, "-o", out)
        #expect(missing.status == 2 && missing.stderr.contains("gone.png: no such input file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["photo.jpg"])
    }

    @Test("help lists every render option with its help text")
    func help() throws {
        let r = try segue("render", "--help")
        #expect(r.status == 0)
        for option in ["--preset", "--set <KEY=VALUE>", "--size <WxH>", "--fps", "--threads", "--format <FORMAT>", "--frames <LIST>", "-o <OUTPUT>"] {
            #expect(r.stdout.contains(option), "\(option)")
        }
        #expect(r.stdout.contains("Overrides a preset key by its dotted path"))
    }
}
