import Foundation
import Testing
@testable import Segue

/// The readers of a template's rows, CSV (RFC 4180) and JSON Lines, on the cases a
/// spreadsheet, a script and a hostile file give them.
@Suite("Template data: CSV and JSON Lines readers")
struct DataReaderTests {
    func load(_ text: String, _ name: String) throws -> TemplateData {
        let path = temporaryFolder().appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try TemplateData.load(path)
    }

    func error(_ text: String, _ name: String) -> String {
        do { _ = try load(text, name); return "no error" } catch { return "\(error)" }
    }

    @Test("CSV: quoted commas, newlines and doubled quotes, CRLF, a byte order mark, blank lines; each row's first line")
    func csv() throws {
        let data = try load("\u{FEFF}id,name,note\r\nr1,\"Lee, Jr.\",\"two\nlines\"\r\n\r\nr2,Ana,\"say \"\"hi\"\"\"\r\nr3,Bo,\n", "rows.csv")
        #expect(data.columns == ["id", "name", "note"])
        #expect(data.rows.map(\.line) == [2, 5, 6])
        #expect(data.rows[0].values == ["id": "r1", "name": "Lee, Jr.", "note": "two\nlines"])
        #expect(data.rows[1].values["note"] == "say \"hi\"" && data.rows[2].values["note"] == "")
    }

    @Test("CSV errors name the file, the line and what was expected")
    func csvErrors() {
        #expect(error("", "empty.csv").contains("empty.csv: cannot read it: no header row"))
        #expect(error("a,b\n1,\"open\n2,3\n", "open.csv").contains("line 2") && error("a,b\n1,\"open\n2,3\n", "open.csv").contains("a quoted field never closed"))
        #expect(error("a,b\n1,\"x\"y\n", "after.csv").contains("'y\n' after a quoted field"))
        #expect(error("a,b\n1,2,3\n", "wide.csv").contains("line 2") && error("a,b\n1,2,3\n", "wide.csv").contains("3 fields"))
    }

    @Test("JSON Lines: escapes and surrogate pairs, numbers as their text, true and false, null as no value (its key a column); keys in the order first seen")
    func jsonLines() throws {
        let data = try load("""
            {"id": "r1", "name": "A\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\/", "n": 3, "x": 2.50, "big": 1e21, "ok": true, "gone": null}

            {"id": "r2", "more": false, "neg": -0.5}\r
            """, "rows.jsonl")
        #expect(data.columns == ["id", "name", "n", "x", "big", "ok", "gone", "more", "neg"])
        #expect(data.rows.map(\.line) == [1, 3])
        #expect(data.rows[0].values == ["id": "r1", "name": "Aé 😀 \"q\" \\ /", "n": "3", "x": "2.5", "big": "1e+21", "ok": "true"])
        #expect(data.rows[1].values == ["id": "r2", "more": "false", "neg": "-0.5"])
    }

    @Test("JSON Lines errors: not an object, a list as a value, a number no double holds, each naming the line and the key")
    func jsonErrors() {
        #expect(error("[1, 2]\n", "list.jsonl").contains("line 1") && error("[1, 2]\n", "list.jsonl").contains("a JSON object on one line"))
        #expect(error("{\"a\": 1}\n{\"a\": [1]}\n", "nested.jsonl").contains("'a'") && error("{\"a\": 1}\n{\"a\": [1]}\n", "nested.jsonl").contains("line 2"))
        #expect(error("{\"far\": 1e400}\n", "huge.jsonl").contains("'far'") && error("{\"far\": 1e400}\n", "huge.jsonl").contains("a number a double holds"))
        #expect(error("{\"a\": 1} x\n", "tail.jsonl").contains("a JSON object on one line"))
        #expect(error("{\"a\": 01}\n", "zero.jsonl").contains("a JSON object on one line"))
    }
}
