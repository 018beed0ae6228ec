import Foundation
import Testing

@Suite("Templates: a story's {{variables}} from --var, a CSV or JSON Lines")
struct TemplateTests {
    /// The rows: an accented name, a quoted comma, right-to-left Arabic and Hebrew, and text that
    /// would be YAML structure if it were pasted into the file; each row its own photo.
    static let rows: [(id: String, name: String, colour: String)] = [
        ("ana", "Ana, María", "204080"), ("zoe", "Zoë Łukasz", "703020"), ("omar", "عمر الخيام", "206030"),
        ("dana", "דנה", "505050"), ("li", "[Li]: {a: 1}", "602060"),
    ]

    /// A card story in `folder`: the name in the middle of the row's photo.
    func card(in folder: URL) throws {
        for row in TemplateTests.rows { try flatPicture("\(row.id).png", colour: "0x" + row.colour, in: folder) }
        try """
            vars:
              name: ~
              photo: ~
              size: 40
            preset: crossfade
            set: {canvas.size: [360, 640], canvas.scale: 1, hold: 0.1}
            overlays:
              - {text: "{{name}}", size: "{{size}}", at: [0.5, 0.5]}
            slides:
              - image: "{{photo}}"
            """.write(to: folder.appendingPathComponent("card.yaml"), atomically: true, encoding: .utf8)
        var csv = "\u{FEFF}id,name,photo,unused\n"
        for row in TemplateTests.rows { csv += "\(row.id),\"\(row.name.replacingOccurrences(of: "\"", with: "\"\""))\",\(row.id).png,x\n" }
        try csv.write(to: folder.appendingPathComponent("people.csv"), atomically: true, encoding: .utf8)
    }

    @Test("a CSV of five rows (a byte order mark, a quoted comma, accents, right-to-left names) gives five videos, each row's name drawn as Pango draws it; an unused column is a warning")
    func csvRows() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try card(in: folder)
        let r = try run(segue, ["batch", "--template", "card.yaml", "--data", "people.csv", "-o", "out/{{id}}", "--jobs", "2"], in: folder)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("column 'unused' is used by neither"), "\(r.stderr)")
        for row in TemplateTests.rows {
            let frame = try rgba(folder.appendingPathComponent("out/\(row.id)/frame-00000.png").path)
            let reference = folder.appendingPathComponent("\(row.id)-pango.png").path
            let p = try tool("pango-view", ["-q", "--pixels", "--font", "Noto Sans 40", "--hinting=none", "--hint-metrics=off", "--subpixel-positions",
                                            "--antialias=gray", "--margin=0", "--background=#\(row.colour)", "--foreground=#ffffff", "-o", reference, "--text", row.name])
            #expect(p.status == 0, "\(p.stderr)")
            let pango = try rgba(reference)
            let x = (frame.width - pango.width) / 2, y = (frame.height - pango.height) / 2
            let best = bestPlacement(of: pango, in: frame, xs: (x - 12)..<(x + 12), ys: (y - 30)..<(y + 30))
            #expect(best.largest <= 3, "\(row.id): '\(row.name)' differs from pango-view's by up to \(best.largest) levels")
        }
    }

    @Test("JSON Lines gives the same videos as the CSV; --var gives the same as a row and overrides a default; sharding renders every row once")
    func jsonLinesVarsAndShards() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try card(in: folder)
        var lines = ""
        for row in TemplateTests.rows {
            let object = try JSONSerialization.data(withJSONObject: ["id": row.id, "name": row.name, "photo": "\(row.id).png"], options: [.sortedKeys])
            lines += String(decoding: object, as: UTF8.self) + "\n"
        }
        try lines.write(to: folder.appendingPathComponent("people.jsonl"), atomically: true, encoding: .utf8)
        #expect(try run(segue, ["batch", "--template", "card.yaml", "--data", "people.csv", "-o", "csv/{{id}}.framemd5", "-q"], in: folder).status == 0)
        #expect(try run(segue, ["batch", "--template", "card.yaml", "--data", "people.jsonl", "-o", "jsonl/{{id}}.framemd5", "-q"], in: folder).status == 0)
        func digest(_ path: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8) }
        for row in TemplateTests.rows {
            let fromCSV = try digest("csv/\(row.id).framemd5"), fromJSON = try digest("jsonl/\(row.id).framemd5")
            #expect(fromCSV == fromJSON, "\(row.id)")
        }
        let one = try run(segue, ["render", "--story", "card.yaml", "--var", "name=Ana, María", "--var", "photo=ana.png", "-o", "ana.framemd5"], in: folder)
        let alone = try digest("ana.framemd5"), row = try digest("csv/ana.framemd5")
        #expect(one.status == 0 && alone == row, "\(one.stderr)")
        let bigger = try run(segue, ["render", "--story", "card.yaml", "--var", "name=Ana, María", "--var", "photo=ana.png", "--var", "size=60", "-o", "big.framemd5"], in: folder)
        let big = try digest("big.framemd5")
        #expect(bigger.status == 0 && big != alone, "\(bigger.stderr)")
        let unset = try run(segue, ["render", "--story", "card.yaml", "--var", "photo=ana.png", "-o", "x.mp4"], in: folder)
        #expect(unset.status == 2 && unset.stderr.contains("card.yaml, line 8") && unset.stderr.contains("--var name=VALUE"), "\(unset.stderr)")
        let typo = try run(segue, ["render", "--story", "card.yaml", "--var", "nmae=Ana", "--var", "name=A", "--var", "photo=ana.png", "-o", "x.mp4"], in: folder)
        #expect(typo.status == 2 && typo.stderr.contains("Did you mean 'name'"), "\(typo.stderr)")
        // Two shards: every row once, in one or the other (as their reports list them).
        var made: [[String]] = []
        for k in 1...2 {
            let report = "report-\(k).json"
            let r = try run(segue, ["batch", "--template", "card.yaml", "--data", "people.csv", "-o", "shards/{{id}}.framemd5", "--shard", "\(k)/2",
                                    "--report", report, "-q"], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(report))) as? [String: Any]
            made.append(((document?["jobs"] as? [[String: Any]]) ?? []).compactMap { ($0["output"] as? String).map { ($0 as NSString).lastPathComponent } })
        }
        #expect(!made[0].isEmpty && !made[1].isEmpty && Set(made[0]).isDisjoint(with: made[1]), "\(made)")
        #expect(Set(made.joined()) == Set(TemplateTests.rows.map { "\($0.id).framemd5" }) && made.joined().count == TemplateTests.rows.count, "\(made)")
    }

    @Test("a row without a required value, a file that is not there, an output two rows write and an output that leaves its folder are refused up front with their lines; nothing is rendered")
    func refusals() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try card(in: folder)
        try """
            id,name,photo
            ok,Ana,ana.png
            noname,,ana.png
            gone,Bo,nowhere.png
            ok,Dup,zoe.png
            ../../escape,Eve,ana.png
            /abs,Abs,ana.png
            """.write(to: folder.appendingPathComponent("bad.csv"), atomically: true, encoding: .utf8)
        let r = try run(segue, ["batch", "--template", "card.yaml", "--data", "bad.csv", "-o", "out/{{id}}.mp4"], in: folder)
        #expect(r.status == 2, "\(r.stdout) \(r.stderr)")
        for expected in ["bad.csv, line 3 (row 2, id noname): column 'name' is empty", "bad.csv, line 4 (row 3, id gone)", "nowhere.png",
                         "bad.csv, line 5: job 4 writes 'out/ok.mp4', as job 1 does", "bad.csv, line 6 (row 5, id ../../escape): the output 'out/../../escape.mp4' leaves the output folder"] {
            #expect(r.stderr.contains(expected), "missing: \(expected)\n\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
        let absolute = try run(segue, ["batch", "--template", "card.yaml", "--data", "bad.csv", "-o", "{{id}}.mp4", "--dry-run"], in: folder)
        #expect(absolute.status == 2 && absolute.stdout.contains("is an absolute path") && absolute.stdout.contains("leaves the working folder"), "\(absolute.stdout)")
    }

    @Test("a preset's vars: its {{variables}} take their defaults, --var or a row's column; one without a value, or a --var nothing uses, is refused naming the file")
    func presetVariables() throws {
        let segue = try installedAlone(), folder = temporaryFolder()
        try flatPicture("wide.png", colour: "0x808080", width: 640, height: 360, in: folder)
        let brand = folder.appendingPathComponent("brand")
        try FileManager.default.createDirectory(at: brand, withIntermediateDirectories: true)
        try flatPicture("mark.png", colour: "0xffff00", width: 64, height: 64, in: brand)
        try """
            extends: crossfade
            vars: {brand: "#204080", accent: ~, mark: mark.png}
            canvas: {size: [180, 320], scale: 0.5, background: "{{brand}}"}
            fit: fit
            hold: 0.2
            text: {color: "{{accent}}", size: 20}
            logo: {image: "{{mark}}", width: 0.2, opacity: 1}
            """.write(to: brand.appendingPathComponent("brand.yaml"), atomically: true, encoding: .utf8)
        try """
            preset: brand/brand.yaml
            vars: {accent: "#ffffff", title: Hi}
            overlays: [{text: "{{title}}", at: [0.5, 0.5]}]
            slides: [{image: wide.png}]
            """.write(to: folder.appendingPathComponent("promo.yaml"), atomically: true, encoding: .utf8)
        /// The colour of the letterbox's top bar in the first frame of a render to `name`; the
        /// logo, found beside the preset, is in the bottom bar.
        func bar(_ arguments: [String], _ name: String) throws -> [UInt8] {
            let r = try run(segue, ["render"] + arguments + ["--format", "png", "--frames", "0", "-o", name], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
            let frame = try rgba(folder.appendingPathComponent("\(name)/frame-00000.png").path)
            let logo = ((frame.height * 95 / 100 - frame.width / 10) * frame.width + frame.width * 95 / 100 - frame.width / 10) * 4
            #expect(frame.bytes[logo] > 240 && frame.bytes[logo + 1] > 240 && frame.bytes[logo + 2] < 16, "\(name): the logo is \(frame.bytes[logo..<(logo + 3)])")
            let i = (5 * frame.width + frame.width / 2) * 4
            return Array(frame.bytes[i..<(i + 3)])
        }
        #expect(try bar(["--preset", "brand/brand.yaml", "--var", "accent=red", "wide.png"], "default") == [0x20, 0x40, 0x80])
        #expect(try bar(["--preset", "brand/brand.yaml", "--var", "accent=red", "--var", "brand=#00ff00", "wide.png"], "given") == [0, 255, 0])
        #expect(try bar(["--story", "promo.yaml", "--var", "brand=#ff0000"], "story") == [255, 0, 0])
        let unset = try run(segue, ["render", "--preset", "brand/brand.yaml", "wide.png", "-o", "x.mp4"], in: folder)
        #expect(unset.status == 2 && unset.stderr.contains("brand/brand.yaml, line 6") && unset.stderr.contains("--var accent=VALUE"), "\(unset.stderr)")
        let listed = try run(segue, ["presets", "--presets", "brand"], in: folder)
        #expect(listed.status == 0 && listed.stdout.contains("extends crossfade (needs --var accent=...)"), "\(listed.stdout)")
        let typo = try run(segue, ["render", "--story", "promo.yaml", "--var", "brnad=#ff0000", "-o", "x.mp4"], in: folder)
        #expect(typo.status == 2 && typo.stderr.contains("Did you mean 'brand'"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.mp4").path))
        // From data: the preset's variable is a column like the story's.
        try "id,brand,title\nred,#ff0000,Red\nblue,,Blue\n".write(to: folder.appendingPathComponent("rows.csv"), atomically: true, encoding: .utf8)
        let rows = try run(segue, ["batch", "--template", "promo.yaml", "--data", "rows.csv", "-o", "rows/{{id}}"], in: folder)
        #expect(rows.status == 0 && !rows.stderr.contains("column 'brand'"), "\(rows.stderr)")
        for (id, colour) in [("red", [UInt8(255), 0, 0]), ("blue", [0x20, 0x40, 0x80])] {
            let frame = try rgba(folder.appendingPathComponent("rows/\(id)/frame-00000.png").path)
            let i = (5 * frame.width + frame.width / 2) * 4
            #expect(Array(frame.bytes[i..<(i + 3)]) == colour, "\(id)")
        }
    }
}
