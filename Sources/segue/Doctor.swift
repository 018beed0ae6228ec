import ArgumentParser
import Foundation
import Segue

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Checks what a render needs where it runs: libraries, FFmpeg's encoders, fonts, the font cache, the CPU and memory.",
        discussion: """
            Prints a table: what was checked, whether it is there, the Debian package that \
            brings it, and where it was found or what fails without it; then the packages to \
            install for what is missing. Exits 0 when everything the shipped presets need is \
            there (an optional encoder or script font may be missing), 1 when something they \
            need is missing.
            """
    )

    @Flag(help: "Prints only the Debian packages Segue needs where it runs, one a line (what the Debian package depends on beyond the libraries it links).")
    var packages = false

    @Flag(help: "Prints only the Debian packages GLSL transitions need beyond those (Mesa's EGL and llvmpipe): what the Debian package recommends.")
    var recommended = false

    func run() throws {
        if packages || recommended {
            print((packages ? Doctor.packages : Doctor.recommended).joined(separator: "\n"))
            return
        }
        let rows = Doctor.checks()
        print(Doctor.table(rows), terminator: "")
        if !Doctor.passed(rows) { throw ExitCode(1) }
    }
}
