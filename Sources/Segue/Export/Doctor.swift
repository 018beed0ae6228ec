import CSegueAV
import CSegueKernels
import Foundation

/// What a render may need where it runs, looked at where it runs: the libraries Segue is
/// linked with and the one it loads when a video has sound, the encoders of FFmpeg's build for
/// every output, the fonts of the shipped text styles (colour emoji among them), fontconfig's
/// cache, the CPU's vector instructions and the cgroup's limits. Each row names the Debian
/// package that brings what it checks; the packages of every row are the run-time list the
/// Debian package depends on and the README names (`packages`), kept in this one place.
public enum Doctor {
    public enum Status: String, Sendable {
        /// There and usable.
        case ok
        /// Not there: the row says what fails without it.
        case missing
        /// There, with something worth knowing (a stale font cache, a CPU without AVX2).
        case note
    }

    /// One row of the table.
    public struct Check: Equatable, Sendable {
        /// What kind of thing it is: library, loaded, encoder, font, fontconfig, cpu, memory.
        public var area: String
        public var name: String
        public var status: Status
        /// Where it was found, or what fails without it.
        public var detail: String
        /// The Debian package that brings it.
        public var package: String?
        /// A shipped preset needs it: missing, `segue doctor` exits 1.
        public var required: Bool
    }

    /// What the checks ask of the system, in one place so that a test can answer instead.
    public struct Probe: Sendable {
        /// The file of the loaded shared object whose name starts with a prefix, or nil.
        public var loadedLibrary: @Sendable (String) -> String?
        /// Nil when libavfilter loads, else why not.
        public var soundFilters: @Sendable () -> String?
        /// Nil when libaubio loads, else why not.
        public var beats: @Sendable () -> String? = {
            var error = SegueAVError()
            return segue_beats_load(&error) == 0 ? nil : error.text
        }
        public var hasEncoder: @Sendable (String) -> Bool
        /// A family's first font file and whether any of its fonts has colour glyphs, or nil.
        public var family: @Sendable (String) -> (file: String, color: Bool)?
        public var fontCache: @Sendable () -> (folders: Int, stale: Int, fonts: Int)
        /// 1 plain C, 2 AVX2, 3 AVX-512.
        public var vectorLevel: @Sendable () -> Int
        public var cpus: @Sendable () -> Int
        /// Bytes this process may use, if known.
        public var memory: @Sendable () -> Int?
        /// The software renderer of GLSL transitions, once loaded, or why it does not load.
        public var shaders: @Sendable () -> Result<String, ExportError> = {
            var error = SegueAVError()
            // A probe leaves nothing behind: Mesa keeps no compiled shader in ~/.cache.
            setenv("MESA_SHADER_CACHE_DISABLE", "true", 1)
            defer { unsetenv("MESA_SHADER_CACHE_DISABLE") }
            guard segue_glsl_load(1, &error) == 0 else { return .failure(.glsl(path: "libEGL.so.1", reason: error.text)) }
            // The renderer's name is known once a context was made: a one-pixel program makes one.
            let program = try? GLSLProgram(source: "vec4 transition(vec2 uv) { return getToColor(uv); }", name: "probe", width: 1, height: 1)
            _ = program
            return .success(String(cString: segue_glsl_renderer()))
        }

        /// The system Segue runs on.
        public static let system = Probe(
            loadedLibrary: { prefix in
                var path = [CChar](repeating: 0, count: 4096)
                return segue_loaded_library(prefix, &path, path.count) == 1 ? Doctor.text(path) : nil
            },
            soundFilters: {
                var why = [CChar](repeating: 0, count: 512)
                return segue_lavfi_check(&why, why.count) == 0 ? nil : Doctor.text(why)
            },
            hasEncoder: { segue_has_encoder($0) != 0 },
            family: { family in
                var file = [CChar](repeating: 0, count: 4096)
                var color: Int32 = 0
                return segue_text_family_file(family, &file, file.count, &color) == 1 ? (Doctor.text(file), color != 0) : nil
            },
            fontCache: {
                var folders: Int32 = 0, stale: Int32 = 0, fonts: Int32 = 0
                segue_text_cache_state(&folders, &stale, &fonts)
                return (Int(folders), Int(stale), Int(fonts))
            },
            vectorLevel: { Int(segue_simd_level()) },
            cpus: { CPUBudget.forThisProcess },
            memory: { MemoryBudget.available() })
    }

    /// A C function's NUL-terminated answer as Swift text.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The Debian package of an FFmpeg library Segue was built against ("avcodec": libavcodec59).
    static func ffmpegPackage(_ name: String) -> String { "lib\(name)\(segue_ffmpeg_major(name))" }

    /// The libraries Segue is linked with: the start of each one's file name, its package and
    /// what it does for Segue.
    static let linked: [(prefix: String, package: String, use: String)] = [
        ("libavcodec.so.", ffmpegPackage("avcodec"), "decodes clips, encodes videos"),
        ("libavformat.so.", ffmpegPackage("avformat"), "reads and writes MP4, WebM, MOV"),
        ("libavutil.so.", ffmpegPackage("avutil"), "FFmpeg's utilities"),
        ("libswscale.so.", ffmpegPackage("swscale"), "converts clips' frames"),
        ("libswresample.so.", ffmpegPackage("swresample"), "resamples sound"),
        ("liblcms2.so.", "liblcms2-2", "colour profiles of photos"),
        ("libheif.so.", "libheif1", "HEIC photos"),
        ("libwebpdemux.so.", "libwebpdemux2", "animated WebP stickers"),
        ("libwebp.so.", "libwebp7", "WebP pictures"),
        ("libyaml-0.so.", "libyaml-0-2", "stories, presets, manifests"),
        ("libpangocairo-1.0.so.", "libpangocairo-1.0-0", "lays out and draws text"),
        ("libpango-1.0.so.", "libpango-1.0-0", "shapes text"),
        ("libcairo.so.", "libcairo2", "draws text"),
        ("libfontconfig.so.", "libfontconfig1", "finds fonts"),
        ("libglib-2.0.so.", "libglib2.0-0", "Pango's base library"),
        ("libsqlite3.so.", "libsqlite3-0", "keeps segue serve's jobs"),
    ]

    /// The Debian package that brings a Noto family.
    static func fontPackage(_ family: String) -> String {
        if family.hasPrefix("Noto Color Emoji") { return "fonts-noto-color-emoji" }
        if family.hasPrefix("Noto Sans Mono") || family.hasPrefix("Noto Mono") { return "fonts-noto-mono" }
        return "fonts-noto-core"
    }

    /// The families the shipped text styles name, and the colour emoji every style falls back to.
    static var shippedFamilies: [String] {
        let named = ([TextStyle().font] + TextStyle.shipped.values.map(\.font))
            .flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        return Array(Set(named)).sorted() + ["Noto Color Emoji"]
    }

    /// Scripts fontconfig falls back to for text in them, from the same Debian package.
    static let scriptFamilies = ["Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Devanagari", "Noto Sans Thai"]

    /// Every FFmpeg encoder an output uses, with the outputs that use it, in the outputs' order.
    static func encoders() -> [(name: String, outputs: [String])] {
        var order: [String] = [], outputs: [String: [String]] = [:]
        func add(_ name: String, _ output: String) {
            if outputs[name] == nil { order.append(name) }
            if outputs[name]?.contains(output) != true { outputs[name, default: []].append(output) }
        }
        for format in OutputFormat.allCases {
            for codec in [Preset.Codec.h264, .hevc] {
                var preset = Preset()
                preset.encode.codec = codec
                guard let encoding = format.encoding(preset) else { continue }
                add(encoding.codec, format.rawValue)
                if format.hasSound { add(encoding.audioCodec, format.rawValue) }
            }
            for name in format.otherEncoders { add(name, format.rawValue) }
        }
        return order.map { ($0, outputs[$0] ?? []) }
    }

    /// The encoders the shipped presets' videos (MP4, with sound) need.
    static var shippedEncoders: Set<String> {
        var names: Set<String> = ["aac"]
        for name in PresetLibrary.builtIn.names {
            if let preset = try? Preset.load(name, library: .builtIn) { names.insert(preset.encode.codec.encoderName) }
        }
        return names
    }

    /// Every row, in the table's order.
    public static func checks(_ probe: Probe = .system) -> [Check] {
        var rows: [Check] = []
        // The font caches as a fresh run finds them: first, before a font lookup rewrites them.
        let cache = probe.fontCache()
        for library in linked {
            let path = probe.loadedLibrary(library.prefix)
            rows.append(Check(area: "library", name: library.prefix.replacingOccurrences(of: ".so.", with: ""),
                              status: path == nil ? .missing : .ok, detail: path.map { "\($0): \(library.use)" } ?? library.use,
                              package: library.package, required: true))
        }
        let filters = probe.soundFilters()
        rows.append(Check(area: "loaded", name: "libavfilter", status: filters == nil ? .ok : .missing,
                          detail: filters ?? "\(probe.loadedLibrary("libavfilter.so.") ?? "loads"): mixes sound (loaded for videos with sound)",
                          package: ffmpegPackage("avfilter"), required: true))
        let beats = probe.beats()
        rows.append(Check(area: "loaded", name: "libaubio", status: beats == nil ? .ok : .missing,
                          detail: beats ?? "\(probe.loadedLibrary("libaubio.so.") ?? "loads"): finds the music's beats (segue beats, timing: beats; loaded for those only)",
                          package: Doctor.aubioPackage, required: false))
        let needed = shippedEncoders
        for encoder in encoders() {
            let found = probe.hasEncoder(encoder.name)
            let uses = encoder.outputs.joined(separator: ", ")
            rows.append(Check(area: "encoder", name: encoder.name, status: found ? .ok : .missing,
                              detail: found ? uses : "FFmpeg's build has no \(encoder.name): \(uses) output fails", package: ffmpegPackage("avcodec"),
                              required: needed.contains(encoder.name)))
        }
        let shipped = shippedFamilies
        for family in shipped + scriptFamilies {
            let found = probe.family(family)
            let emoji = family == "Noto Color Emoji"
            var status: Status = found == nil ? .missing : .ok
            var detail = found?.file ?? (emoji ? "emoji are drawn without colour, or not at all" : shipped.contains(family) ? "the shipped text styles fall back to another font" : "text in this script falls back to another font")
            if emoji, let found, !found.color {
                status = .missing
                detail = "\(found.file) has no colour glyphs"
            }
            rows.append(Check(area: "font", name: family, status: status, detail: detail, package: fontPackage(family), required: shipped.contains(family)))
        }
        let renderer = probe.shaders()
        rows.append(Check(area: "loaded", name: "llvmpipe", status: (try? renderer.get()) == nil ? .missing : .ok,
                          detail: (try? renderer.get()).map { "\($0): runs GLSL transitions (loaded for those only)" }
                              ?? "GLSL transitions (kind: glsl, gl: files without a port) fail: libEGL and Mesa's software renderer do not load",
                          package: recommended.joined(separator: ", "), required: false))
        rows.append(Check(area: "fontconfig", name: "cache", status: cache.stale == 0 ? .ok : .note,
                          detail: cache.stale == 0 ? "\(cache.fonts) fonts in \(cache.folders) folders, cached"
                              : "\(cache.stale) of \(cache.folders) font folders have no current cache: each run scans them (fc-cache -f fixes it)",
                          package: "fontconfig", required: false))
        let level = probe.vectorLevel()
        rows.append(Check(area: "cpu", name: "vectors", status: level >= 2 ? .ok : .note,
                          detail: level >= 3 ? "AVX-512 (and AVX2)" : level == 2 ? "AVX2" : "none of AVX2 or AVX-512 (or SEGUE_SIMD caps it): the same bytes, more slowly",
                          package: nil, required: false))
        rows.append(Check(area: "cpu", name: "cores", status: .ok, detail: "\(probe.cpus()) this process may use (affinity, cgroup quota)", package: nil, required: false))
        let memory = probe.memory()
        rows.append(Check(area: "memory", name: "available", status: memory.map { $0 < 1 << 30 ? .note : .ok } ?? .note,
                          detail: memory.map { "\($0 >> 20) MiB (MemAvailable, cgroup limit)" + ($0 < 1 << 30 ? ": 1080x1920 renders need about 1 GiB" : "") } ?? "unknown",
                          package: nil, required: false))
        return rows
    }

    /// True when nothing a shipped preset needs is missing.
    public static func passed(_ rows: [Check]) -> Bool { !rows.contains { $0.required && $0.status == .missing } }

    /// Every Debian package the rows name, sorted: what Segue needs where it runs.
    public static var packages: [String] {
        let names = linked.map(\.package) + [ffmpegPackage("avfilter"), aubioPackage] + (shippedFamilies + scriptFamilies).map(fontPackage)
        return Array(Set(names)).sorted()
    }

    /// The Debian package of libaubio, which finds beats (loaded when first asked for).
    public static let aubioPackage = "libaubio5"

    /// The Debian packages only GLSL transitions need (Mesa's EGL and llvmpipe, about 100 MB):
    /// the package recommends them.
    public static let recommended = ["libegl1", "libegl-mesa0", "libgl1-mesa-dri"]

    /// The rows as an aligned table, with a last line saying what to install.
    public static func table(_ rows: [Check]) -> String {
        let header = ["WHAT", "NAME", "STATUS", "PACKAGE", "DETAIL"]
        let cells = rows.map { [$0.area, $0.name, $0.status == .missing && !$0.required ? "missing (optional)" : $0.status.rawValue, $0.package ?? "-", $0.detail] }
        let widths = (0..<4).map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            (0..<4).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[4]
        }
        var text = ([header] + cells).map(line).joined(separator: "\n") + "\n"
        let missing = rows.filter { $0.status == .missing }
        func packages(_ rows: [Check]) -> [String] {
            Array(Set(rows.flatMap { $0.package?.components(separatedBy: ", ") ?? [] })).sorted()
        }
        let required = missing.filter(\.required), optional = packages(missing.filter { !$0.required })
        if required.isEmpty {
            text += "\neverything a render needs is here\n"
        } else {
            text += "\nmissing what the shipped presets need: \(required.map(\.name).joined(separator: ", "))\n"
            text += "install: apt-get install \(packages(required).joined(separator: " "))\n"
        }
        if !optional.isEmpty { text += "for what is optional: apt-get install \(optional.joined(separator: " "))\n" }
        return text
    }
}
