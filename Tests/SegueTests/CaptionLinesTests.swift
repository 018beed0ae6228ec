import Foundation
import Testing
@testable import Segue

@Suite("Captions: each cue knows the line of its times")
struct CaptionLinesTests {
    @Test("a cue's line is the line of its times, in SRT (numbered cues) and in WebVTT (whose demuxer places a cue after it), long text and all")
    func cueLines() throws {
        let folder = temporaryFolder()
        let srt = folder.appendingPathComponent("a.srt"), vtt = folder.appendingPathComponent("a.vtt")
        try "1\n00:00:00,500 --> 00:00:01,000\nhello\n\n2\n00:00:01,200 --> 00:00:02,000\ntwo\nlines\n\n3\n00:00:03,000 --> 00:00:04,000\nlast\n"
            .write(to: srt, atomically: true, encoding: .utf8)
        try "WEBVTT\n\nNOTE a comment\n\n00:00.500 --> 00:01.000\nhello\n\nsecond\n00:01.200 --> 00:02.000\ntwo\nlines\n\n00:03.000 --> 00:04.000 align:start\nlast\n"
            .write(to: vtt, atomically: true, encoding: .utf8)
        #expect(try Captions.cues(srt.path).map(\.line) == [2, 6, 11])
        #expect(try Captions.cues(vtt.path).map(\.line) == [5, 9, 13])
    }
}
