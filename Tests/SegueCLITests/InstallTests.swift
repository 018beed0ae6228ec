import Foundation
import Testing

@Suite("scripts/install")
struct InstallTests {
    @Test("installs a segue that needs no Swift runtime and no file beside it, with bash, zsh and fish completions")
    func install() throws {
        let prefix = temporaryFolder().appendingPathComponent("usr")
        let r = try run(root.appendingPathComponent("scripts/install").path, [prefix.path])
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
}
