import Foundation
import Testing

@Suite("scripts/install")
struct InstallTests {
    @Test("installs a segue that needs no Swift runtime, no file beside it and no library the README leaves out, with bash, zsh and fish completions")
    func install() throws {
        let prefix = temporaryFolder().appendingPathComponent("usr")
        let r = try run(repositoryRoot.appendingPathComponent("scripts/install").path, [prefix.path])
        #expect(r.status == 0, "\(r.stderr)")
        let segue = prefix.appendingPathComponent("bin/segue").path
        #expect(r.stdout.contains("installed segue ") && r.stdout.contains("at \(segue)"), "\(r.stdout)")

        // Nothing of the Swift toolchain is needed where it runs: only libc and FFmpeg's libraries.
        let libraries = try tool("ldd", [segue]).stdout
        #expect(!libraries.contains("libswift") && !libraries.contains("libFoundation") && !libraries.contains("/opt/swift"), "\(libraries)")

        let photos = try photoFolder()
        let render = try run(segue, ["render", "--preset", "telegram-cube", "a.jpg", "b.png", "-o", "story.mp4", "--size", "90x160",
                                     "--set", "canvas.scale=0.25"], in: photos)
        #expect(render.status == 0, "\(render.stderr)")
        try InstallTests.checkLibraries(of: segue, in: photos)

        let bash = prefix.appendingPathComponent("share/bash-completion/completions/segue").path
        let loaded = try tool("bash", ["-c", "source '\(bash)' && complete -p segue"])
        #expect(loaded.status == 0 && loaded.stdout.contains("segue"), "\(loaded.stderr)")
        let words = try tool("bash", ["-c", "source '\(bash)'; COMP_WORDS=(segue ''); COMP_CWORD=1; COMP_LINE='segue '; COMP_POINT=6; _segue; echo \"${COMPREPLY[@]}\""])
        for command in ["render", "checksum", "batch", "presets"] { #expect(words.stdout.contains(command), "\(words.stdout) \(words.stderr)") }
        for file in ["share/zsh/site-functions/_segue", "share/fish/vendor_completions.d/segue.fish"] {
            let text = try String(contentsOf: prefix.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("batch") && text.contains("resume") && text.contains("shard-count"), "\(file)")
        }
    }

    /// The libraries `segue` needs where it runs (its `NEEDED` entries, and those it loads
    /// itself: libavfilter, when a video has sound) each come from a package the README
    /// names, one those pull in, or one every Debian system has (what `apt` needs).
    static func checkLibraries(of segue: String, in photos: URL) throws {
        let needed = try tool("readelf", ["-d", segue]).stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(needed.contains("libavcodec.so.59") || needed.contains { $0.hasPrefix("libavcodec.so.") }, "\(needed)")
        // What the dynamic linker loads for a video with sound, as it says (LD_DEBUG).
        try ffmpeg(["-f", "lavfi", "-i", "sine=d=1", photos.appendingPathComponent("tone.wav").path])
        let render = try run(segue, ["render", "a.jpg", "b.png", "--audio", "tone.wav", "-o", "sound.mp4", "--size", "90x160",
                                     "--set", "canvas.scale=0.25"], in: photos, environment: ["LD_DEBUG": "files"])
        #expect(render.status == 0, "\(render.stderr.suffix(2000))")
        let loaded = render.stderr.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("dynamically loaded by"), let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
        #expect(loaded.contains { $0.hasPrefix("libavfilter.so.") }, "libavfilter is loaded for sound: \(loaded)")

        /// The package that ships library `name`.
        func package(of name: String) throws -> String? {
            let owners = try tool("dpkg", ["-S", "*/\(name)"]).stdout.split(separator: "\n")
            return owners.first { $0.hasSuffix("/\(name)") }.map { String($0.prefix { $0 != ":" }) }
        }
        /// `packages` and every package they depend on, recursively (as installed here).
        func closure(_ packages: [String]) throws -> Set<String> {
            var seen = Set<String>(), queue = packages
            while let next = queue.popLast() {
                guard seen.insert(next).inserted else { continue }
                let depends = try tool("dpkg-query", ["-W", "-f", "${Depends},${Pre-Depends}", next]).stdout
                for alternative in depends.split(whereSeparator: { $0 == "," || $0 == "|" }) {
                    let name = alternative.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != ":" && $0 != "(" }
                    if !name.isEmpty { queue.append(String(name)) }
                }
            }
            return seen
        }
        // The README's run-time packages: the backticked names of the paragraph that lists them.
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let paragraph = try #require(readme.components(separatedBy: "\n\n").first { $0.contains("where it runs it needs only") })
        let named = paragraph.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            .filter { !$0.contains(" ") && !$0.hasPrefix("-") }
        #expect(named.contains("libavfilter8") && named.count > 8, "\(named)")
        let provided = try closure(named).union(closure(["apt"]))
        for library in Set(needed + loaded.filter { $0.hasPrefix("libavfilter") }).sorted() {
            let owner = try package(of: library)
            #expect(owner.map(provided.contains) == true, "\(library) comes from \(owner ?? "no package"), which the README's run-time list does not bring")
        }
    }
}
