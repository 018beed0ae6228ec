import Foundation
import Testing

/// One after the other: the package and the image ship the executable scripts/install installs
/// (SEGUE_BINARY under scripts/test; without it scripts/install builds one in .build-install).
@Suite("scripts/install and the Debian package", .serialized, .wholeSuite("help2man, lintian, debootstrap's Debian root and umoci"))
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
        // Presets and transitions by name: the installed segue asked, as the shell finds it.
        func complete(_ line: [String]) throws -> String {
            // As bash calls it: the words, the line and the cursor, then (command, word, previous word).
            let words = (line + [""]).map { "'\($0)'" }.joined(separator: " "), typed = line.joined(separator: " ") + " "
            let script = "export PATH='\(prefix.path)/bin':$PATH; source '\(bash)'; COMP_WORDS=(\(words)); COMP_CWORD=\(line.count); "
                + "COMP_LINE='\(typed)'; COMP_POINT=\(typed.count); _segue segue '' '\(line.last!)'; echo \"${COMPREPLY[@]}\""
            return try tool("bash", ["-c", script]).stdout
        }
        let presets = try complete(["segue", "render", "--preset"])
        #expect(presets.contains("stories-cube") && presets.contains("telegram-cube"), "\(presets)")
        let transitions = try complete(["segue", "transitions", "show"])
        #expect(transitions.contains("crossfade") && transitions.contains("gl:swap"), "\(transitions)")
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

    /// The README's sizes of the package, of what it installs and of its executable are what
    /// this package measures, in whole MB (10⁶ bytes), each within 1 MB or 4 % (a build for
    /// tests differs a little from a plain one): a stated size goes stale as the code grows,
    /// and this says when.
    static func checkSizes(in readme: String, deb: String, contents: String) throws {
        let text = readme.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let sentence = try Regex(#"The package is (\d+) MB and (\d+) MB installed; its executable is (\d+) MB"#)
        let stated = try #require(text.firstMatch(of: sentence), "the README states no sizes").output
        let package = Double(try FileManager.default.attributesOfItem(atPath: deb)[.size] as? Int ?? 0)
        // dpkg-deb --contents: "-rwxr-xr-x root/root 79999999 2026-... ./usr/bin/segue"
        var installed = 0.0, executable = 0.0
        for line in contents.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, line.first == "-", let size = Double(fields[2]) else { continue }
            installed += size
            if fields.last == "./usr/bin/segue" { executable = size }
        }
        let measured = [package, installed, executable].map { $0 / 1e6 }
        let said = (1...3).map { Double(stated[$0].substring ?? "") ?? -1 }
        for (name, (m, s)) in zip(["package", "installed", "executable"], zip(measured, said)) {
            let tolerance: Double = max(1, 0.04 * m)
            #expect(abs(m - s) <= tolerance, "README says the \(name) is \(Int(s)) MB; scripts/package made \(String(format: "%.1f", m)) MB")
        }
    }

    /// The "name: value" lines scripts/clean-room prints (not the doctor's table but its exit codes).
    static func facts(_ output: String) -> [String: String] {
        var facts: [String: String] = [:]
        for line in output.split(separator: "\n") where !line.hasPrefix("doctor") || line.contains("exit:") {
            if let colon = line.range(of: ": ") { facts[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...]) }
        }
        return facts
    }

    @Test("the Debian package: lintian finds no error; on a clean Debian 12 apt installs it with all it needs, a plain user's doctor passes and a story with Arabic, emoji, a sticker, a clip's sound and music renders; without colour emoji doctor fails naming the package; removed, nothing is left")
    func debianPackage() throws {
        let dist = temporaryFolder()
        let package = try run(repositoryRoot.appendingPathComponent("scripts/package").path, [dist.path])
        #expect(package.status == 0, "\(package.stderr.suffix(3000))")
        let deb = package.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasPrefix(dist.path + "/segue_") && deb.hasSuffix("_amd64.deb"), "\(package.stdout)")
        guard package.status == 0 else { return }

        // What it holds and depends on: the binary, completions, man pages, the copyright; the
        // run-time list (doctor's, the README's) besides what dpkg-shlibdeps found.
        let contents = try tool("dpkg-deb", ["--contents", deb]).stdout
        // A man page for each subcommand the command tree has (preview's too), as the tree says.
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(try run(segueBinary, ["--experimental-dump-help"]).stdout.utf8)) as? [String: Any])
        let subcommands = ((tree["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? []).compactMap { $0["commandName"] as? String }
        #expect(subcommands.contains("preview") && subcommands.count >= 9, "\(subcommands)")
        let pages = subcommands.filter { $0 != "help" }.map { "./usr/share/man/man1/segue-\($0).1.gz" }
        for file in ["./usr/bin/segue", "./usr/share/bash-completion/completions/segue", "./usr/share/zsh/vendor-completions/_segue",
                     "./usr/share/fish/vendor_completions.d/segue.fish", "./usr/share/man/man1/segue.1.gz", "./usr/share/doc/segue/copyright",
                     "./usr/share/doc/segue/changelog.gz", "./usr/share/doc/segue/docs/chunks.md"] + pages {
            #expect(contents.contains(" \(file)\n"), "\(file) is not in the package")
        }
        let depends = try tool("dpkg-deb", ["-f", deb, "Depends"]).stdout
        let names = Set(depends.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix { $0 != " " }) })
        for name in ["libc6", "libavcodec59", "libavformat59", "libavfilter8", "libyaml-0-2", "fonts-noto-core", "fonts-noto-mono", "fonts-noto-color-emoji"] {
            #expect(names.contains(name), "\(name) not in Depends: \(depends)")
        }
        // The README's run-time paragraph names the same list as the package's run-time packages.
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        try InstallTests.checkSizes(in: readme, deb: deb, contents: contents)
        let paragraph = try #require(readme.components(separatedBy: "\n\n").first { $0.contains("where it runs it needs only") })
        let named = Set(paragraph.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            .filter { !$0.contains(" ") && ($0.hasPrefix("lib") || $0.hasPrefix("fonts-")) })
        let doctor = try run(segueBinary, ["doctor", "--packages"])
        let list = Set(doctor.stdout.split(separator: "\n").map(String.init))
        #expect(!list.isEmpty && named == list, "README only: \(named.subtracting(list).sorted()); doctor only: \(list.subtracting(named).sorted())")
        #expect(list.isSubset(of: names), "Depends lacks \(list.subtracting(names).sorted())")
        // Mesa, for GLSL transitions only, is recommended: the list segue doctor --recommended prints.
        let recommends = try tool("dpkg-deb", ["-f", deb, "Recommends"]).stdout
        let recommended = Set(recommends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let mesa = try run(segueBinary, ["doctor", "--recommended"])
        #expect(recommended == Set(mesa.stdout.split(separator: "\n").map(String.init)) && recommended.contains("libgl1-mesa-dri"), "Recommends: \(recommends)")

        let room = try run(repositoryRoot.appendingPathComponent("scripts/clean-room").path, [deb])
        #expect(room.status == 0 && room.stdout.hasSuffix("clean room: ok\n"), "\(room.stdout.suffix(3000)) \(room.stderr.suffix(3000))")
        let facts = InstallTests.facts(room.stdout)
        #expect(facts["installed"]?.hasSuffix(" installed") == true, "\(room.stdout)")
        #expect(facts["doctor exit"] == "0", "\(room.stdout)")
        #expect(room.stdout.contains("doctor | \neverything a render needs is here") || room.stdout.contains("doctor | everything a render needs is here"), "\(room.stdout)")
        #expect(facts["mp4 streams"] == "aac h264 ", "\(room.stdout)")
        #expect(Double(facts["mp4 seconds"] ?? "") ?? 0 > 3, "\(room.stdout)")
        #expect(facts["gif streams"] == "gif ", "\(room.stdout)")
        // Mesa is recommended, not installed: a GLSL transition is refused naming its packages, nothing written.
        #expect(facts["glsl without mesa exit"] == "2" && facts["glsl output written"] == "no", "\(room.stdout)")
        #expect(facts["glsl without mesa"]?.contains("libgl1-mesa-dri") == true, "\(room.stdout)")
        #expect(facts["doctor without emoji exit"] == "1", "\(room.stdout)")
        #expect(room.stdout.contains("doctor without emoji | install: apt-get install fonts-noto-color-emoji"), "\(room.stdout)")
        #expect(facts["after remove"] == "not-installed, 0 files left", "\(room.stdout)")

        // The container image: the same root with the package, packed by umoci; unpacked by it,
        // the same story renders in it as its own user.
        let image = try run(repositoryRoot.appendingPathComponent("scripts/image").path, [deb, dist.path])
        #expect(image.status == 0, "\(image.stderr.suffix(3000))")
        let tarball = image.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(tarball.hasSuffix(".oci.tar") && FileManager.default.fileExists(atPath: tarball), "\(image.stdout)")
        guard image.status == 0 else { return }
        let inside = try run(repositoryRoot.appendingPathComponent("scripts/clean-room").path, ["--image", tarball])
        #expect(inside.status == 0 && inside.stdout.hasSuffix("clean room: ok\n"), "\(inside.stdout.suffix(3000)) \(inside.stderr.suffix(3000))")
        let seen = InstallTests.facts(inside.stdout)
        #expect(seen["image entrypoint"] == "/usr/bin/segue --help" && seen["image user"] == "1000", "\(inside.stdout)")
        #expect(seen["image apt lists"] == "0 files" && seen["image apt archives"] == "0 files" && seen["image root history"] == "none", "\(inside.stdout)")
        #expect(seen["doctor exit"] == "0" && seen["mp4 streams"] == "aac h264 " && seen["gif streams"] == "gif ", "\(inside.stdout)")
        let unpacked = Int(seen["image unpacked"]?.split(separator: " ").first ?? "") ?? .max
        let installed = Int(facts["installed root"]?.split(separator: " ").first ?? "") ?? 0
        #expect(unpacked <= installed, "the image's root (\(unpacked) MB) is larger than Debian's root with the package (\(installed) MB)")
        let version = try tool("dpkg-deb", ["-f", deb, "Version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The label names the clone's address, or is left out when the clone has none (a folder).
        let origin = try tool("git", ["-C", repositoryRoot.path, "remote", "get-url", "origin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let address = ["https://", "http://", "git@", "ssh://"].contains { origin.hasPrefix($0) }
        #expect(seen["image version"] == version && (seen["image revision"]?.count ?? 0) >= 7 && seen["image source"] == (address ? origin : "none"), "\(inside.stdout)")
        // Its font caches are current once unpacked: no folder scanned, no cache written into
        // HOME (read-only, as uid 1000); doctor reports them current, and stale once a folder changes.
        let stale = seen["image stale font caches"]?.split(separator: " ") ?? []
        #expect(stale.count == 3 && stale[0] == "0" && (Int(stale[2]) ?? 0) >= 3, "\(inside.stdout)")
        #expect(seen["image doctor cache"]?.contains("cached") == true && seen["image font caches in home"] == "0 files", "\(inside.stdout)")
        #expect(seen["image doctor stale cache"]?.contains("have no current cache") == true, "\(inside.stdout)")
    }
}
