import Foundation
import Testing
@testable import Segue

@Suite("The host: the process's settings")
struct HostTests {
    /// The `THP_enabled` line of a process's status (Linux 6.x and later print it).
    static func hugePages(inStatus status: String) -> String? {
        status.split(separator: "\n").first { $0.hasPrefix("THP_enabled:") }.map { $0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces) }
    }

    @Test("huge pages off: for this process and for a process it starts")
    func hugePagesOff() throws {
        let before = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        try #require(HostTests.hugePages(inStatus: before) != nil, "this kernel does not report THP_enabled")
        #expect(HugePages.disable())
        #expect(HostTests.hugePages(inStatus: try String(contentsOfFile: "/proc/self/status", encoding: .utf8)) == "0")
        let child = Process(), pipe = Pipe()
        child.executableURL = URL(fileURLWithPath: "/bin/cat")
        child.arguments = ["/proc/self/status"]
        child.standardOutput = pipe
        try child.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(HostTests.hugePages(inStatus: text) == "0")
    }
}
