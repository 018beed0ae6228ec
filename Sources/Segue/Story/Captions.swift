import CSegueAV
import Foundation

/// Subtitles burnt into the video: each cue of an SRT or WebVTT file (read by libavformat) a
/// text overlay fixed to the screen while the cue lasts, frame-exact (frame i shows the cues
/// active at i / fps); with `words`, the word being spoken highlighted or the words revealed
/// as they come, at WebVTT's inline timestamps or, without them, the cue's time shared over
/// its words by their length.
public enum Captions {
    public enum Words: String, CaseIterable, Sendable {
        case none, highlight, reveal
    }

    /// One cue as the file has it.
    struct Cue {
        var start: Double
        var end: Double
        var text: String
        var line: Int
    }

    /// Where captions sit by default: centred, their bottom at 80 % of the height, clear of
    /// the bottom 20 % and top 14 % that Instagram and TikTok cover with their own controls.
    static let defaultAt = Point(x: 0.5, y: 0.8)

    /// The cues of `path`, in order.
    static func cues(_ path: String) throws -> [Cue] {
        final class Collected { var cues: [Cue] = [] }
        let collected = Collected()
        var error = SegueAVError()
        var work = SegueSubtitlesWork()
        let status = segue_subtitles_read(path, { start, end, text, line, context in
            Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue().cues.append(
                Cue(start: start, end: end, text: String(decoding: UnsafeRawBufferPointer(start: text!, count: strlen(text!)), as: UTF8.self), line: Int(line)))
        }, Unmanaged.passUnretained(collected).toOpaque(), &work, &error)
        WorkCounts.add(.bytesScanned, Int(work.bytes))
        WorkCounts.add(.searchSteps, Int(work.steps))
        guard status == 0 else { throw ExportError.text(what: path, reason: error.text) }
        return collected.cues
    }

    /// The overlays of a `captions:` value: a file, or `{file, words, highlight, at, anchor,
    /// width, style, and text style keys}`. Files are resolved by `resolve`.
    public static func overlays(_ node: ConfigNode, key: String, preset: Preset, resolve: (String) -> String = { $0 },
                                schema: ConfigReader.Schema? = nil) throws -> [Overlay] {
        let mapping: ConfigNode
        if case .scalar = node.value {
            mapping = ConfigNode(.mapping([(key: "file", value: node)]), origin: node.origin)
        } else {
            mapping = node
        }
        var r = try ConfigReader(mapping, path: key)
        r.schema = schema
        let fileNode = mapping["file"]
        let file = resolve(try r.requiredText("file", expected: "an SRT or WebVTT file", "The subtitles: an SRT or WebVTT file, relative to the story."))
        var style = preset.styles["caption"] ?? preset.text
        if let name = r.raw("style", type: "text", "A named style for the captions; default: caption.") {
            style = try TextStyle.named(name, key: r.fullKey("style"), among: preset.styles)
        }
        try style.read(&r, resolve: resolve)
        let words = Words(rawValue: try r.choice("words", default: "none", among: Words.allCases.map(\.rawValue),
                                                 "Word by word: highlight colours the word being spoken, reveal shows words as they come, none shows each cue whole."))!
        let highlight = try r.color("highlight", default: Color(red: 1, green: 0.83, blue: 0), "The spoken word's colour with words: highlight.")
        let at = try r.numbers("at", default: [defaultAt.x, defaultAt.y], in: -1...2, expected: "[x, y]", "Where the captions' anchor sits, [x, y] in 0...1 of the screen.") { $0.count == 2 }
        var anchor = Point(x: 0.5, y: 1)
        if let node = r.raw("anchor", type: "text or [x, y]", "Which point of a caption sits at `at`; default: bottom.") {
            anchor = try Overlay.anchor(node, key: r.fullKey("anchor"))
        }
        let width = try r.number("width", default: 0.85, in: 0...1, "Wrap width, a fraction of the screen's width; 0 for no wrapping.")
        try r.finish()
        guard FileManager.default.fileExists(atPath: file) else {
            throw PresetError.invalid(key: r.fullKey("file"), origin: fileNode?.origin ?? node.origin, value: "'\(file)'", expected: "a file that exists (no such file)")
        }
        let cues: [Cue]
        do { cues = try Captions.cues(file) } catch let ExportError.text(_, reason) {
            // A cue that is wrong is said at its line; the file is of the right kind.
            if reason.hasPrefix("line ") {
                throw PresetError.inside(key: r.fullKey("file"), origin: fileNode?.origin ?? node.origin, problem: "\(file), \(reason)")
            }
            throw PresetError.invalid(key: r.fullKey("file"), origin: fileNode?.origin ?? node.origin, value: "'\(file)'", expected: "an SRT or WebVTT file (\(reason))")
        }
        var line: Int?
        func overlay(_ text: String, markup: Bool, from start: Double, to end: Double) -> Overlay {
            var o = Overlay(text: text, markup: markup, style: style)
            o.line = line
            o.at = Point(x: at[0], y: at[1])
            o.placed = mapping["at"] != nil
            o.anchor = anchor
            o.width = width > 0 ? width : nil
            o.span = Span(start: start, end: .at(end))
            return o
        }
        var overlays: [Overlay] = []
        if let (cue, problem) = cues.lazy.compactMap({ cue in Overlay.lengthProblem(cue.text).map { (cue, $0) } }).first {
            throw PresetError.inside(key: r.fullKey("file"), origin: fileNode?.origin ?? node.origin,
                                     problem: "\(file), line \(cue.line): the cue '\(shortened(cue.text))' is too long (expected \(problem))")
        }
        for cue in cues where cue.end > cue.start {
            line = cue.line
            let parsed = CueText(cue.text)
            switch words {
            case .none:
                overlays.append(overlay(parsed.markup, markup: true, from: cue.start, to: cue.end))
            case .highlight, .reveal:
                let spans = parsed.words
                guard !spans.isEmpty else { continue }
                let times = parsed.times(of: spans, from: cue.start, to: cue.end)
                if times[0] > cue.start {
                    var first = overlay(parsed.plain, markup: false, from: cue.start, to: times[0])
                    if words == .reveal { first.shown = 0 }
                    overlays.append(first)
                }
                for (k, span) in spans.enumerated() {
                    let until = k + 1 < spans.count ? times[k + 1] : cue.end
                    guard until > times[k] else { continue }
                    if words == .highlight {
                        // Every word's overlay shares the cue's one string; the word is a range of it.
                        var o = overlay(parsed.plain, markup: false, from: times[k], to: until)
                        o.highlight = Overlay.Highlight(scalars: span, color: highlight)
                        overlays.append(o)
                    } else {
                        var o = overlay(parsed.plain, markup: false, from: times[k], to: until)
                        o.shown = span.upperBound
                        overlays.append(o)
                    }
                }
            }
        }
        return overlays
    }
}

/// A cue's text: what shows (without tags), bold, italic and underline kept as Pango markup,
/// and WebVTT's inline timestamps (`<00:01.500>`) by where they stand in it.
struct CueText {
    /// The text as shown, tags removed and entities decoded.
    var plain = ""
    /// The same as Pango markup, with <b>, <i> and <u> kept.
    var markup = ""
    /// Inline timestamps: the seconds and the scalar offset in `plain` they stand before.
    var marks: [(offset: Int, time: Double)] = []

    init(_ raw: String) {
        var offset = 0
        var rest = Substring(raw)
        // The styles open, innermost last: the markup is always well nested, as Pango needs.
        var open: [String] = []
        func append(_ text: some StringProtocol) {
            plain += text
            CueText.escape(text, into: &markup)
            offset += text.unicodeScalars.count
        }
        while let c = rest.first {
            if c == "<", let close = rest.firstIndex(of: ">") {
                let tag = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
                if let time = CueText.timestamp(tag) {
                    marks.append((offset, time))
                } else {
                    let lower = tag.lowercased(), closing = lower.hasPrefix("/")
                    let name = closing ? String(lower.dropFirst()) : lower
                    if !closing, CueText.styles.contains(name) {
                        open.append(name)
                        markup += "<\(name)>"
                    } else if closing, let k = open.lastIndex(of: name) {
                        // Closed across another (<i>a<b>b</i>): the inner ones close and reopen.
                        let inner = open[(k + 1)...]
                        for style in inner.reversed() { markup += "</\(style)>" }
                        markup += "</\(name)>"
                        for style in inner { markup += "<\(style)>" }
                        open.remove(at: k)
                    }
                }
                continue
            }
            if c == "&", let semicolon = rest.prefix(8).firstIndex(of: ";") {
                let entity = String(rest[rest.startIndex...semicolon])
                if let decoded = CueText.entities[entity] {
                    append(decoded)
                    rest = rest[rest.index(after: semicolon)...]
                    continue
                }
            }
            // A run of plain text at once, up to the next tag or entity.
            let end = rest.firstIndex { $0 == "<" || $0 == "&" } ?? rest.endIndex
            let run = end == rest.startIndex ? rest.prefix(1) : rest[..<end]
            append(run)
            rest = rest[run.endIndex...]
        }
        // Tags left open (a cue cut short) are closed, so the markup parses.
        for style in open.reversed() { markup += "</\(style)>" }
    }

    /// The tags of WebVTT kept as Pango's.
    private static let styles = ["b", "i", "u"]

    /// The entities of WebVTT, decoded.
    private static let entities = ["&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": "\u{A0}", "&quot;": "\"", "&apos;": "'",
                                   "&lrm;": "\u{200E}", "&rlm;": "\u{200F}"]

    /// `hh:mm:ss.ttt` or `mm:ss.ttt` in seconds, or nil.
    static func timestamp(_ tag: String) -> Double? {
        let parts = tag.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isNumber || $0 == "." } }) else { return nil }
        let numbers = parts.compactMap { Double($0) }
        guard numbers.count == parts.count else { return nil }
        return numbers.reduce(0) { $0 * 60 + $1 }
    }

    /// Appends `text` to `markup` with `&`, `<` and `>` escaped, in one pass.
    static func escape(_ text: some StringProtocol, into markup: inout String) {
        var start = text.startIndex
        for i in text.indices {
            let replacement: String
            switch text[i] {
            case "&": replacement = "&amp;"
            case "<": replacement = "&lt;"
            case ">": replacement = "&gt;"
            default: continue
            }
            markup += text[start..<i]
            markup += replacement
            start = text.index(after: i)
        }
        markup += text[start...]
    }

    /// The words: scalar ranges of `plain` between white space.
    var words: [Range<Int>] {
        var spans: [Range<Int>] = [], start: Int?
        for (i, scalar) in plain.unicodeScalars.enumerated() {
            if scalar.properties.isWhitespace {
                if let s = start { spans.append(s..<i); start = nil }
            } else if start == nil {
                start = i
            }
        }
        if let s = start { spans.append(s..<plain.unicodeScalars.count) }
        return spans
    }

    /// When each word is spoken: at the inline timestamp before it where the cue has them,
    /// otherwise the cue's time shared over the words by their length.
    func times(of words: [Range<Int>], from start: Double, to end: Double) -> [Double] {
        if !marks.isEmpty {
            // The words and the marks are both in order: one walk over each.
            var next = 0, time = start
            return words.map { word in
                while next < marks.count && marks[next].offset <= word.lowerBound { time = marks[next].time; next += 1 }
                return min(end, max(start, time))
            }
        }
        let total = Double(words.reduce(0) { $0 + $1.count })
        var before = 0
        return words.map { word in
            defer { before += word.count }
            return start + (end - start) * Double(before) / total
        }
    }
}
