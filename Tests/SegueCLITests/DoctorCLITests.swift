import Foundation
import SegueTestSupport
import Testing

@Suite("segue doctor where it runs")
struct DoctorCLITests {
    @Test("the font cache is judged as a fresh run finds it, before doctor's own lookups make it; the llvmpipe probe leaves no shader cache in HOME")
    func cachesAsFound() throws {
        let folder = temporaryFolder()
        let fonts = folder.appendingPathComponent("fonts"), caches = folder.appendingPathComponent("caches"), home = folder.appendingPathComponent("home")
        for made in [fonts, caches, home] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", toPath: fonts.appendingPathComponent("NotoSans-Regular.ttf").path)
        let configuration = folder.appendingPathComponent("fonts.conf")
        try """
            <?xml version="1.0"?>
            <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
            <fontconfig><dir>\(fonts.path)</dir><cachedir>\(caches.path)</cachedir></fontconfig>
            """.write(to: configuration, atomically: true, encoding: .utf8)
        let environment = ["FONTCONFIG_FILE": configuration.path, "HOME": home.path, "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path]
        let first = try run(segueBinary, ["doctor"], in: folder, environment: environment)
        let row = { (r: Run) in r.stdout.split(separator: "\n").first { $0.hasPrefix("fontconfig") }.map(String.init) ?? r.stdout + r.stderr }
        #expect(row(first).contains("1 of 1 font folders have no current cache"), "\(row(first))")
        // That run's own lookups scanned the folder and wrote its cache: the next finds it.
        let second = try run(segueBinary, ["doctor"], in: folder, environment: environment)
        #expect(row(second).contains("1 fonts in 1 folders, cached"), "\(row(second))")
        // Nothing was written into HOME: no font cache (it went to the cachedir) and no Mesa shader cache.
        let left = FileManager.default.enumerator(atPath: home.path)?.allObjects as? [String] ?? []
        #expect(left.isEmpty, "\(left)")
    }
}
