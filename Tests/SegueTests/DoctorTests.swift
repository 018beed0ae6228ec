import Foundation
import Testing
@testable import Segue

/// `segue doctor`'s rows, from a probe the test answers: what is missing, whether a shipped
/// preset needs it, and the package that brings it.
@Suite("segue doctor")
struct DoctorTests {
    /// A system with everything, but for what `missing` names (encoders, families, "lavfi",
    /// "colour", library prefixes).
    static func probe(missing: Set<String> = [], stale: Int = 0, level: Int = 3) -> Doctor.Probe {
        Doctor.Probe(
            loadedLibrary: { missing.contains($0) ? nil : "/usr/lib/x86_64-linux-gnu/\($0)1" },
            soundFilters: { missing.contains("lavfi") ? "the soundtrack needs FFmpeg's libavfilter.so.8: not found" : nil },
            hasEncoder: { !missing.contains($0) },
            family: { missing.contains($0) ? nil : ("/usr/share/fonts/\($0).ttf", $0 == "Noto Color Emoji" && !missing.contains("colour")) },
            fontCache: { (12, stale, 3000) },
            vectorLevel: { level },
            cpus: { 2 },
            memory: { 8 << 30 })
    }

    static func row(_ rows: [Doctor.Check], _ name: String) throws -> Doctor.Check {
        try #require(rows.first { $0.name == name }, "no row \(name)")
    }

    @Test("with everything there it passes and names nothing to install")
    func allThere() {
        let rows = Doctor.checks(DoctorTests.probe())
        #expect(Doctor.passed(rows))
        #expect(!rows.contains { $0.status == .missing }, "\(rows.filter { $0.status == .missing })")
        let table = Doctor.table(rows)
        #expect(table.contains("everything a render needs is here") && !table.contains("install:"), "\(table)")
        for name in ["libavcodec", "libavfilter", "libx264", "aac", "libvpx-vp9", "libopus", "prores_ks", "libwebp_anim", "gif", "png",
                     "Noto Sans", "Noto Sans Mono", "Noto Color Emoji", "Noto Sans Arabic", "cache", "vectors", "cores"] {
            #expect(rows.contains { $0.name == name }, "\(name)")
        }
    }

    @Test("missing colour emoji (absent, or a font without colour glyphs) fails and names fonts-noto-color-emoji")
    func emoji() throws {
        for missing: Set<String> in [["Noto Color Emoji"], ["colour"]] {
            let rows = Doctor.checks(DoctorTests.probe(missing: missing))
            let emoji = try DoctorTests.row(rows, "Noto Color Emoji")
            #expect(emoji.status == .missing && emoji.required && emoji.package == "fonts-noto-color-emoji", "\(emoji)")
            #expect(!Doctor.passed(rows))
            let table = Doctor.table(rows)
            #expect(table.contains("install: apt-get install fonts-noto-color-emoji\n"), "\(table)")
            #expect(table.contains("missing what the shipped presets need: Noto Color Emoji"), "\(table)")
        }
    }

    @Test("a missing encoder of the shipped presets' MP4s or missing libavfilter fails; a missing optional encoder or script font does not")
    func requiredOrNot() throws {
        for name in ["libx264", "aac", "lavfi", "Noto Sans Mono"] {
            #expect(!Doctor.passed(Doctor.checks(DoctorTests.probe(missing: [name]))), "\(name)")
        }
        let lavfi = try DoctorTests.row(Doctor.checks(DoctorTests.probe(missing: ["lavfi"])), "libavfilter")
        #expect(lavfi.status == .missing && lavfi.package?.hasPrefix("libavfilter") == true && lavfi.detail.contains("not found"), "\(lavfi)")
        for name in ["libx265", "libvpx-vp9", "prores_ks", "gif", "Noto Sans Arabic"] {
            let rows = Doctor.checks(DoctorTests.probe(missing: [name]))
            #expect(Doctor.passed(rows), "\(name)")
            let row = try DoctorTests.row(rows, name)
            #expect(row.status == .missing && !row.required, "\(row)")
            #expect(Doctor.table(rows).contains("missing (optional)"), "\(name)")
        }
        let x265 = try DoctorTests.row(Doctor.checks(DoctorTests.probe(missing: ["libx265"])), "libx265")
        #expect(x265.detail.contains("mp4"), "\(x265)")
    }

    @Test("a stale font cache and a CPU without AVX2 are notes, not failures")
    func notes() throws {
        let rows = Doctor.checks(DoctorTests.probe(stale: 3, level: 1))
        #expect(Doctor.passed(rows))
        #expect(try DoctorTests.row(rows, "cache").status == .note)
        #expect(try DoctorTests.row(rows, "cache").detail.contains("3 of 12"))
        #expect(try DoctorTests.row(rows, "vectors").status == .note)
    }

    @Test("every encoder an output writes with is checked, with the outputs that use it")
    func encodersFromTheOutputs() {
        let encoders = Dictionary(uniqueKeysWithValues: Doctor.encoders().map { ($0.name, $0.outputs) })
        #expect(encoders["libx264"] == ["mp4"] && encoders["libx265"] == ["mp4"], "\(encoders)")
        #expect(encoders["aac"]?.contains("mp4") == true && encoders["aac"]?.contains("mov") == true, "\(encoders)")
        #expect(encoders["libvpx-vp9"] == ["webm"] && encoders["libopus"] == ["webm"] && encoders["prores_ks"] == ["mov"], "\(encoders)")
        #expect(encoders["libwebp_anim"] == ["webp"] && encoders["gif"] == ["gif"] && encoders["png"] == ["png", "sheet"], "\(encoders)")
    }

    @Test("the run-time packages: the linked libraries', libavfilter's and the fonts'")
    func packages() {
        let packages = Doctor.packages
        for name in ["libyaml-0-2", "libpangocairo-1.0-0", "liblcms2-2", "libheif1", "libaubio5", "fonts-noto-core", "fonts-noto-mono", "fonts-noto-color-emoji"] {
            #expect(packages.contains(name), "\(name): \(packages)")
        }
        #expect(packages.contains { $0.hasPrefix("libavfilter") } && packages.contains { $0.hasPrefix("libavcodec") }, "\(packages)")
        #expect(packages == packages.sorted() && Set(packages).count == packages.count)
    }
}
