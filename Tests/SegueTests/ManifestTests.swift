import Foundation
import Testing
@testable import Segue

@Suite("Manifests, layers of keys, shards and the CPU budget")
struct ManifestTests {
    func write(_ text: String) throws -> String {
        let path = temporaryFolder().appendingPathComponent("m.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func problems(_ text: String) throws -> [String] {
        let path = try write(text)
        return try Manifest.load(path).problems
    }

    @Test("every job is read: all problems come together, each with its line")
    func allProblems() throws {
        let found = try problems("""
            jobs:
              - {inputs: [], output: a.mp4}
              - {inputs: a.jpg, output: b.mp4}
              - {inputs: [a.jpg], outptu: c.mp4}
              - {inputs: [a.jpg], output: d.mp4}
              - {inputs: [a.jpg], output: e.mp4, format: mp5}
              - {inputs: [x.jpg], output: d.mp4}
              - {inputs: [d.mp4], output: f.mp4}
            """)
        #expect(found.count == 7, "\(found)")
        #expect(found.contains { $0.contains("line 2: 'jobs[1].inputs' is an empty list (expected one or more image paths") })
        #expect(found.contains { $0.contains("line 3: 'jobs[2].inputs' is the text 'a.jpg' (expected a list: one or more image paths") })
        #expect(found.contains { $0.contains("line 4: unknown key 'jobs[3].outptu'. Did you mean 'output'?") })
        #expect(found.contains { $0.contains("line 4: 'jobs[3].output' is missing") })
        #expect(found.contains { $0.contains("line 6: 'jobs[5].format' is 'mp5' (expected one of: mp4, webm, mov, gif, webp, png, framemd5, yuv, sheet, null; did you mean 'mp4'?)") })
        #expect(found.contains { $0.contains("line 7: job 6 writes") && $0.contains("d.mp4', as job 4 does") })
        #expect(found.contains { $0.contains("line 8: job 7 reads") && $0.contains("d.mp4', which job 4 writes") })
    }

    @Test("a nested set merges like the dotted form; a new transition kind drops the old kind's keys")
    func layers() throws {
        let nested = try Preset.load("slide", settings: [("transition", try ConfigNode.parse(yaml: "{duration: 0.2}", name: "m"))])
        #expect(nested.transition.duration == 0.2 && nested.transition.kind == "slide" && nested.transition.values == ParameterValues())
        let plain = try Preset.load("slide")
        #expect(nested.transition.curve == plain.transition.curve)
        let dotted = try Preset.load("slide", settings: [("transition.duration", try ConfigNode.parse(yaml: "0.2", name: "m"))])
        #expect(dotted == nested)

        let crossfade = try Preset.load("slide", overrides: ["transition.kind=crossfade"])
        let slide = try Preset.load("slide")
        #expect(crossfade.transition.kind == "crossfade" && crossfade.transition.values == ParameterValues()
                && crossfade.transition.duration == slide.transition.duration)
        #expect(throws: PresetError.self) { try Preset.load("slide", overrides: ["transition.kind=crossfade", "transition.direction=up"]) }
        let back = try Preset.load("telegram-cube", overrides: ["transition.kind=slide", "transition.direction=up"])
        #expect(back.transition.kind == "slide" && back.transition.values == Slide().with(Slide.direction, .up).values)
    }

    @Test("a preset that extends another without a description says so, and may extend a built-in of its own name")
    func extendsDescription() throws {
        let folder = temporaryFolder()
        try "extends: slide\nhold: 1\n".write(to: folder.appendingPathComponent("quick.yaml"), atomically: true, encoding: .utf8)
        try "extends: slide\ntransition: {direction: up}\n".write(to: folder.appendingPathComponent("slide.yaml"), atomically: true, encoding: .utf8)
        let library = PresetLibrary(folders: [folder.path])
        #expect(try Preset(library.node(for: "quick")).description == "extends slide")
        let mine = try Preset(library.node(for: "slide"))
        #expect(mine.transition.values == Slide().with(Slide.direction, .up).values && mine.description == "extends slide")
        #expect(library.entries().first { $0.name == "slide" }?.hides == [.builtIn])
    }

    @Test("YAML: '&' and '*' inside plain text load; anchors, aliases and second documents do not")
    func yaml() throws {
        let node = try ConfigNode.parse(yaml: "description: Cube & fade *slow*\nnote: a*b & c\n", name: "t")
        guard case let .scalar(text, _)? = node["description"]?.value else { Issue.record("no description"); return }
        #expect(text == "Cube & fade *slow*")
        for bad in ["a: &x 1\nb: *x\n", "a: [&y 1]\n", "---\na: 1\n---\nb: 2\n"] {
            #expect(throws: PresetError.self) { try ConfigNode.parse(yaml: bad, name: "t") }
        }
    }

    @Test("--shard K/N is 1-based; 0 and K > N are refused with the way out")
    func shardParse() throws {
        #expect(try Shard.parse("2/3") == Shard(index: 1, count: 3, source: "--shard 2/3"))
        #expect(throws: ShardError.self) { try Shard.parse("0/3") }
        #expect(throws: ShardError.self) { try Shard.parse("4/3") }
        #expect(throws: ShardError.self) { try Shard.parse("x") }
        #expect(try Shard.automatic(environment: ["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_MAX": "9",
                                                  "SLURM_ARRAY_TASK_STEP": "2"]).index == 1)
    }

    @Test("CPU quotas: cgroup v2 cpu.max and v1 cfs files, the smallest of a cgroup and its parents, rounded up")
    func cpuQuota() throws {
        #expect(CPUBudget.quota(cpuMax: "max 100000\n") == nil)
        #expect(CPUBudget.quota(cpuMax: "150000 100000\n") == 2)
        #expect(CPUBudget.quota(cpuMax: "50000 100000") == 1)
        #expect(CPUBudget.quota(cpuMax: "-1 100000") == nil)
        let root = temporaryFolder()
        let proc = root.appendingPathComponent("cgroup").path
        try "0::/pod/container\n".write(toFile: proc, atomically: true, encoding: .utf8)
        for (path, value) in [("pod", "300000 100000"), ("pod/container", "max 100000")] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
            try value.write(to: root.appendingPathComponent(path + "/cpu.max"), atomically: true, encoding: .utf8)
        }
        #expect(CPUBudget.cgroupQuota(proc: proc, root: root.path) == 3)
        try "4:cpu,cpuacct:/job\n".write(toFile: proc, atomically: true, encoding: .utf8)
        let v1 = root.appendingPathComponent("cpu,cpuacct/job")
        try FileManager.default.createDirectory(at: v1, withIntermediateDirectories: true)
        try "200000\n".write(to: v1.appendingPathComponent("cpu.cfs_quota_us"), atomically: true, encoding: .utf8)
        try "100000\n".write(to: v1.appendingPathComponent("cpu.cfs_period_us"), atomically: true, encoding: .utf8)
        #expect(CPUBudget.cgroupQuota(proc: proc, root: root.path) == 2)
        #expect(CPUBudget.available(environment: ["SLURM_CPUS_PER_TASK": "1"]) == 1)
    }

    @Test("--jobs auto: one job for each 1.5 CPUs, no more than the jobs that render or than half the memory holds")
    func jobsAtOnce() throws {
        #expect(JobsAtOnce("auto") == .auto && JobsAtOnce("3") == .fixed(3) && JobsAtOnce("64") == .fixed(64))
        for wrong in ["0", "65", "-1", "many", "2.5", ""] { #expect(JobsAtOnce(wrong) == nil, "\(wrong)") }
        let small = try Job(preset: Preset.load("crossfade", overrides: ["canvas.size=[540, 960]"]), inputs: [example("a.jpg")], output: "s.framemd5")
        let large = try Job(preset: Preset.load("crossfade", overrides: ["canvas.size=[1080, 1920]"]), inputs: [example("a.jpg")], output: "l.framemd5")
        let four = [small, small, small, small]
        for (cpus, expected) in [(1, 1), (2, 2), (3, 2), (4, 3), (8, 4)] {
            #expect(JobsAtOnce.auto.resolved(rendering: four, cpus: cpus, memory: nil) == expected, "\(cpus) CPUs")
        }
        #expect(JobsAtOnce.auto.resolved(rendering: [small], cpus: 8, memory: nil) == 1)
        #expect(JobsAtOnce.auto.resolved(rendering: [], cpus: 8, memory: nil) == 1)
        #expect(JobsAtOnce.fixed(5).resolved(rendering: [small], cpus: 1, memory: 1) == 5)
        // The largest job's estimated peak sets what memory allows: 4 GB holds three 1080x1920
        // jobs in its half, and more 540x960 ones.
        let peak = JobsAtOnce.estimatedPeak(of: large)
        #expect(peak > 250 << 20 && peak < 400 << 20 && JobsAtOnce.estimatedPeak(of: small) < peak)
        #expect(JobsAtOnce.auto.resolved(rendering: four + [large], cpus: 64, memory: 6 * peak + 1) == 3)
        #expect(JobsAtOnce.auto.resolved(rendering: four, cpus: 64, memory: 6 * peak + 1) == 4)
        #expect(JobsAtOnce.auto.resolved(rendering: [large, large], cpus: 64, memory: peak) == 1)
    }

    @Test("memory available: MemAvailable, capped by a cgroup's memory.max or v1 limit")
    func memoryBudget() throws {
        let root = temporaryFolder()
        let meminfo = root.appendingPathComponent("meminfo").path
        try "MemTotal:       32000000 kB\nMemFree:        1000000 kB\nMemAvailable:   20000000 kB\n".write(toFile: meminfo, atomically: true, encoding: .utf8)
        let proc = root.appendingPathComponent("cgroup").path
        try "0::/pod/container\n".write(toFile: proc, atomically: true, encoding: .utf8)
        #expect(MemoryBudget.available(meminfo: meminfo, proc: proc, root: root.path) == 20_000_000 * 1024)
        for (path, value) in [("pod", "2147483648\n"), ("pod/container", "max\n")] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
            try value.write(to: root.appendingPathComponent(path + "/memory.max"), atomically: true, encoding: .utf8)
        }
        #expect(MemoryBudget.available(meminfo: meminfo, proc: proc, root: root.path) == 2_147_483_648)
        try "5:memory:/job\n".write(toFile: proc, atomically: true, encoding: .utf8)
        let v1 = root.appendingPathComponent("memory/job")
        try FileManager.default.createDirectory(at: v1, withIntermediateDirectories: true)
        try "9223372036854771712\n".write(to: v1.appendingPathComponent("memory.limit_in_bytes"), atomically: true, encoding: .utf8)
        #expect(MemoryBudget.available(meminfo: meminfo, proc: proc, root: root.path) == 20_000_000 * 1024, "v1's no limit")
        try "1073741824\n".write(to: v1.appendingPathComponent("memory.limit_in_bytes"), atomically: true, encoding: .utf8)
        #expect(MemoryBudget.available(meminfo: meminfo, proc: proc, root: root.path) == 1_073_741_824)
        #expect(MemoryBudget.available(meminfo: root.appendingPathComponent("none").path, proc: proc, root: root.path) == 1_073_741_824)
    }

    @Test("a fingerprint changes with a preset key or an input's content, not with its path or the preset's description")
    func fingerprints() throws {
        let folder = temporaryFolder()
        let a = folder.appendingPathComponent("a.jpg").path, copy = folder.appendingPathComponent("copy.jpg").path
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: a)
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: copy)
        var preset = try Preset.load("slide")
        let base = try Fingerprint.of(Job(preset: preset, inputs: [a], output: "x.mp4"))
        #expect(try Fingerprint.of(Job(preset: preset, inputs: [copy], output: "elsewhere/y.mp4")) == base)
        preset.description = "another description"
        #expect(try Fingerprint.of(Job(preset: preset, inputs: [a], output: "x.mp4")) == base)
        preset.hold += 0.1
        #expect(try Fingerprint.of(Job(preset: preset, inputs: [a], output: "x.mp4")) != base)
        preset.hold -= 0.1
        #expect(try Fingerprint.of(Job(preset: preset, inputs: [a], output: "x.framemd5")) != base)
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: example("b.png"), toPath: copy)
        #expect(try Fingerprint.of(Job(preset: preset, inputs: [copy], output: "x.mp4")) != base)
    }

    @Test("an input's digest is read once while the file is unchanged and was left alone; again once it changes; each time while it was just written")
    func digestsKept() throws {
        let a = temporaryFolder().appendingPathComponent("a.jpg").path
        try FileManager.default.copyItem(atPath: example("a.jpg"), toPath: a)
        let settledTime = [FileAttributeKey.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)]
        try FileManager.default.setAttributes(settledTime, ofItemAtPath: a)
        let job = try Job(preset: try Preset.load("slide"), inputs: [a], output: "x.mp4")
        func twice() throws -> (fingerprints: [String], hashed: Int) {
            let counts = WorkCounts()
            let fingerprints = try counts.counting { [try Fingerprint.of(job), try Fingerprint.of(job)] }
            return (fingerprints, counts[.filesHashed])
        }
        let settled = try twice()
        #expect(settled.hashed == 1 && settled.fingerprints[0] == settled.fingerprints[1])
        // Written again in place: read at each fingerprint while it may still change unseen.
        // (Its time is set in 2100, so that however slowly the test runs, the file counts as
        // just changed.)
        try Data(contentsOf: URL(fileURLWithPath: example("b.png"))).write(to: URL(fileURLWithPath: a))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 4_102_444_800)], ofItemAtPath: a)
        let fresh = try twice()
        #expect(fresh.hashed == 2 && fresh.fingerprints[0] == fresh.fingerprints[1] && fresh.fingerprints[0] != settled.fingerprints[0])
        try FileManager.default.setAttributes(settledTime, ofItemAtPath: a)
        let again = try twice()
        #expect(again.hashed == 1 && again.fingerprints == fresh.fingerprints)
    }

    @Test("a fingerprint counts the text the video can show: a cue that starts after the video ends changes nothing, one inside it does")
    func lateCuesOutsideTheFingerprint() throws {
        let a = example("a.jpg")
        let plain = try Job(preset: try Preset.load("slide"), inputs: [a, a], output: "x.mp4")
        let end = plain.timeline.seconds
        func cue(_ text: String, at start: Double) -> Overlay {
            var overlay = Overlay(text: text, markup: false, style: TextStyle())
            overlay.span = Span(start: start, end: .after(1))
            return overlay
        }
        func with(_ cues: [Overlay]) throws -> Job { try plain.edited { $0.overlays = cues } }
        let base = try Fingerprint.of(try with([cue("first", at: 0)]))
        #expect(try Fingerprint.of(try with([cue("first", at: 0), cue("after the end", at: end + 1)])) == base)
        #expect(try Fingerprint.of(try with([cue("first", at: 0), cue("after the end", at: end + 1), cue("at the end", at: end - 0.5)])) != base)
    }

    @Test("a fingerprint is the SHA-256 of a canonical JSON document, pinned here: a Swift or Foundation update cannot move it")
    func pinnedFingerprint() throws {
        let input = temporaryFolder().appendingPathComponent("pin.png").path
        try "pinned input\n".write(toFile: input, atomically: true, encoding: .utf8)
        var preset = Preset()
        preset.transition = Preset.TransitionSettings(Slide().with(Slide.direction, .up), duration: 0.25, curve: .linear)
        let job = try Job(preset: preset, inputs: [input, input], output: "x.framemd5")
        let document = try Fingerprint.document(of: job)
        let digest = "sha256:569dcc66411eb4426c8032cd03aeb5b1128c1ad63024377ec80deee1cd215e08"   // sha256sum of the file
        #expect(document == """
            {"canvas":{"background":"#000000","height":"1920","scale":"3","width":"1080"},\
            "encode":{"codec":"h264","crf":"20","speed":"medium","threads":"2"},"fingerprint":"4","fit":"fill",\
            "format":"framemd5","fps":"30","frames":"all","hold":"2","inputs":["\(digest)","\(digest)"],\
            "motion":{"amount":"0.1","center":["0.5","0.5"],"curve":"linear","kind":"none"},"segue":"\(SegueVersion.number)",\
            "transition":{"curve":"linear","duration":"0.25","kind":"slide","parameters":{"direction":"up"}}}
            """, "\(document)")
        // The digest of that text (Segue 0.4.0, document version 4: a new version of either is a new fingerprint, and this line changes with it).
        #expect(try Fingerprint.of(job) == "sha256:f080c0c885214fbb992beaa6870f332c6d994f2ade890bbd16f041ad0d698bc9")
        // A story's hard cut is written as such, and a preset's curve by its name.
        var slides = [StorySlide(image: input), StorySlide(image: input)]
        slides[0].transition = ConfigNode(.scalar("cut", quoted: false), origin: .builtIn)
        #expect(try Fingerprint.document(of: Job(preset: preset, slides: slides, output: "x.framemd5")).contains(#""plan":{"cuts":["cut"],"holds":["2","2"]"#))
    }

    @Test("overlays and stickers are in the canonical document key by key, a sticker by content, pinned here")
    func overlayFingerprint() throws {
        let folder = temporaryFolder()
        let sticker = folder.appendingPathComponent("s.png").path, copy = folder.appendingPathComponent("t.png").path
        try "sticker bytes\n".write(toFile: sticker, atomically: true, encoding: .utf8)
        try "sticker bytes\n".write(toFile: copy, atomically: true, encoding: .utf8)
        let input = folder.appendingPathComponent("pin.png").path
        try "pinned input\n".write(toFile: input, atomically: true, encoding: .utf8)
        func job(_ change: (inout Overlay, inout Overlay) -> Void) throws -> Job {
            var text = Overlay(text: "Día 1 \"quoted\"", style: TextStyle())
            text.at = Point(x: 0.5, y: 0.25)
            var picture = Overlay(sticker: Sticker(path: sticker, width: 0.2))
            change(&text, &picture)
            var request = JobRequest(.files([input]), preset: Preset(), output: "x.framemd5")
            request.overlays = [text, picture]
            return try Job(request)
        }
        let document = try Fingerprint.document(of: job { _, _ in })
        for piece in [#""text":"Día 1 \"quoted\"""#, #""at":["0.5","0.25"]"#, #""appear":{"duration":"0","kind":"none"}"#,
                      #""end":"none""#, #""rotation":"0""#, ##""color":"#FFFFFF""##, #""shadow":"none""#, #""weight":"400""#] {
            #expect(document.contains(piece), "\(piece) in \(document)")
        }
        // sha256sum of the sticker's bytes: the file counts by content, not by name.
        #expect(document.contains(#""sticker":{"file":"sha256:63a117f6bc2243084926a5ba3d820c39bc6ec3da11be326f9b067d4ecc8624e4","#
            + #""frames":"1","height":"none","loop":"true","width":"0.2"}"#), "\(document)")
        let base = try Fingerprint.of(job { _, _ in })
        #expect(try Fingerprint.of(job { _, picture in picture.content = .image(Sticker(path: copy, width: 0.2)) }) == base)
        #expect(try Fingerprint.of(job { text, _ in text.rotation = 5 }) != base)
        #expect(try Fingerprint.of(job { text, _ in text.style.shadow = TextStyle.Shadow(x: 1, y: 1, blur: 2, color: .black) }) != base)
        #expect(try Fingerprint.of(job { _, picture in
            var still = Sticker(path: sticker, width: 0.2)
            still.loop = false
            picture.content = .image(still)
        }) != base)
        #expect(!document.contains("Overlay("), "no Swift description in the document")
    }

    @Test("the outputs are one table: names, extensions, defaults and refusals read from each output's descriptor")
    func outputTable() throws {
        #expect(Set(OutputFormat.allCases.map(\.rawValue)).count == OutputFormat.allCases.count)
        for format in OutputFormat.allCases {
            #expect(OutputFormat(rawValue: format.rawValue) == format)
            for ext in format.extensions where ext != "png" { #expect(OutputFormat.inferred(from: "a/b." + ext) == format, "\(ext)") }
        }
        #expect(OutputFormat.inferred(from: "x.png") == .sheet && OutputFormat.inferred(from: "frames") == .png && OutputFormat.inferred(from: "-") == .framemd5)
        #expect(OutputFormat.inferred(from: "x.avi") == nil)
        // A GIF's own rate applies in the library too, unless something above the preset gives one.
        let a = example("a.jpg"), b = example("b.png")
        #expect(try Job(preset: Preset.load("stories-cube"), inputs: [a, b], output: "x.gif").preset.fps == FrameRate(15))
        #expect(try Job(preset: Preset.load("stories-cube", overrides: ["fps=20"]), inputs: [a, b], output: "x.gif").preset.fps == FrameRate(20))
        #expect(try Job(preset: Preset.load("stories-cube"), inputs: [a, b], output: "x.mp4").preset.fps == FrameRate(30))
        var set = try Preset.load("stories-cube")
        set.fps = FrameRate(24)
        #expect(try Job(preset: set, inputs: [a, b], output: "x.gif").preset.fps == FrameRate(24), "a rate set in code is given")
        // The command line's typed values become nodes with the option as their origin: no YAML is printed.
        var patch = PresetPatch()
        patch.set("audio.file", .text("a \"quoted\" name: #1.mp3"), origin: .option("--audio"))
        patch.set("canvas.size", .integers([90, 160]), origin: .option("--size 90x160"))
        let layer = try patch.layer()
        #expect(layer["audio"]?["file"]?.value == .scalar("a \"quoted\" name: #1.mp3", quoted: true))
        #expect(layer["canvas"]?["size"]?.origin == .option("--size 90x160"))
        // A target's keys are a patch of its own, under the story's and the command line's keys.
        let story = try Preset.load("stories-cube", overrides: ["target=tiktok", "fps=60"])
        #expect(story.canvas.width == 1080 && story.fps == FrameRate(60) && story.encode.maxRate == 12000)
    }
}
