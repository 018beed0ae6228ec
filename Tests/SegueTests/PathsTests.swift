import Foundation
import SegueTestSupport
import Testing
@testable import Segue

/// `Paths.canonical` tells whether two paths name one file: it must agree with the file
/// system's own resolution (`realpath`) however the path reaches the file, while resolving
/// each folder once.
@Suite("Canonical paths")
struct PathsTests {
    /// The file system's answer for a path that exists.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    @Test("links at the end, relative and absolute, chained, through linked folders and with '..': the same file realpath finds")
    func linksAgreeWithRealpath() throws {
        let root = temporaryFolder().path
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/photos/nature", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: root + "/photos/nature/a.jpg"))
        try manager.createSymbolicLink(atPath: root + "/work/absolute.jpg", withDestinationPath: root + "/photos/nature/a.jpg")
        try manager.createSymbolicLink(atPath: root + "/work/relative.jpg", withDestinationPath: "../photos/nature/a.jpg")
        try manager.createSymbolicLink(atPath: root + "/work/chained.jpg", withDestinationPath: "relative.jpg")
        try manager.createSymbolicLink(atPath: root + "/work/folder", withDestinationPath: "../photos")
        try manager.createSymbolicLink(atPath: root + "/work/through.jpg", withDestinationPath: "folder/nature/../nature/a.jpg")
        try manager.createSymbolicLink(atPath: root + "/photos/nature/dot.jpg", withDestinationPath: "./a.jpg")
        let names = ["work/absolute.jpg", "work/relative.jpg", "work/chained.jpg", "work/through.jpg", "work/folder/nature/a.jpg",
                     "work/folder/nature/dot.jpg", "work/../work/chained.jpg", "photos/./nature/a.jpg"]
        let real = try #require(PathsTests.realPath(root + "/photos/nature/a.jpg"))
        for name in names {
            #expect(PathsTests.realPath(root + "/" + name) == real, "\(name): the test's own links")
            #expect(Paths.canonical(root + "/" + name) == real, "\(name)")
        }
        // A link whose target does not exist yet names the target's path; a loop is still an answer.
        try manager.createSymbolicLink(atPath: root + "/work/later.mp4", withDestinationPath: "../photos/later.mp4")
        #expect(Paths.canonical(root + "/work/later.mp4") == PathsTests.realPath(root + "/photos")! + "/later.mp4")
        try manager.createSymbolicLink(atPath: root + "/work/loop1", withDestinationPath: "loop2")
        try manager.createSymbolicLink(atPath: root + "/work/loop2", withDestinationPath: "loop1")
        #expect(!Paths.canonical(root + "/work/loop1").isEmpty)
    }

    @Test("while planning, a path's answer is the first one found; outside, the file system's of the moment")
    func rememberingOnePass() throws {
        let root = temporaryFolder().path
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/one", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/two", withIntermediateDirectories: true)
        try manager.createSymbolicLink(atPath: root + "/photo.jpg", withDestinationPath: "one/a.jpg")
        let one = try #require(PathsTests.realPath(root + "/one")) + "/a.jpg", two = try #require(PathsTests.realPath(root + "/two")) + "/a.jpg"
        Paths.remembering {
            #expect(Paths.canonical(root + "/photo.jpg") == one)
            try? manager.removeItem(atPath: root + "/photo.jpg")
            try? manager.createSymbolicLink(atPath: root + "/photo.jpg", withDestinationPath: "two/a.jpg")
            #expect(Paths.canonical(root + "/photo.jpg") == one, "the pass keeps its first answer")
            #expect(Paths.identity(root + "/one") == FileIdentity(root + "/one"))
        }
        #expect(Paths.canonical(root + "/photo.jpg") == two, "after the pass, the link as it is now")
        #expect(Paths.memo == nil)
    }
}
