import ArgumentParser
import Foundation
import Segue

struct Beats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Prints the music's tempo, beats, bar starts, meter and onsets, found by libaubio.",
        discussion: """
            Reads anything FFmpeg decodes. The tempo is in beats a minute; the confidence, 0 to 1, says \
            how clearly the sound keeps the beat grid (a click track near 1, music with a beat \
            about 0.5, speech, noise and silence near 0; timing: beats falls back under \
            timing.confidence). Times are seconds from the file's start. Needs libaubio \
            (Debian's libaubio5), loaded only when beats are asked for.
            """
    )

    @Argument(help: ArgumentHelp("A sound file (or a video's sound).", valueName: "FILE"), completion: .file())
    var file: String

    @Flag(help: "Prints JSON: {file, bpm, confidence, meter, beats, downbeats, onsets}.")
    var json = false

    func run() throws {
        let grid = try BeatGrid.analyse(file)
        func times(_ list: [Double]) -> String { list.map { String(format: "%.3f", $0) }.joined(separator: " ") }
        if json {
            print(try Beats.json(grid, file: file))
            return
        }
        print(String(format: "tempo: %.2f BPM (confidence %.3f), meter %d, %d beats, %d downbeats, %d onsets",
                     grid.bpm, grid.confidence, grid.meter, grid.beats.count, grid.downbeats.count, grid.onsets.count))
        print("beats: " + times(grid.beats))
        print("downbeats: " + times(grid.downbeats))
        print("onsets: " + times(grid.onsets))
    }
}

extension Beats {
    /// The grid as `--json` prints it (and `segue mcp`'s beats tool answers).
    static func json(_ grid: BeatGrid, file: String) throws -> String {
        let document: [String: Any] = [
            "file": file, "bpm": (grid.bpm * 100).rounded() / 100, "confidence": (grid.confidence * 1000).rounded() / 1000,
            "meter": grid.meter, "beats": grid.beats.map { ($0 * 1000).rounded() / 1000 },
            "downbeats": grid.downbeats.map { ($0 * 1000).rounded() / 1000 }, "onsets": grid.onsets.map { ($0 * 1000).rounded() / 1000 },
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]), as: UTF8.self)
    }
}
