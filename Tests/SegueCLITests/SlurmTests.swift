import Foundation
import Synchronization
import Testing

/// A single-node Slurm cluster from Debian's packages, brought up in a folder of its own by
/// scripts/slurm-cluster and taken down by the PIDs it recorded: one for the run, shared by
/// the tests that need it, taken down as the test process exits.
final class SlurmCluster: Sendable {
    let folder: URL
    let environment: [String: String]

    /// The run's cluster, brought up by the first test that asks.
    static let shared = Result<SlurmCluster, Error> {
        let cluster = try SlurmCluster()
        SlurmCluster.running.withLock { $0 = cluster.folder.path }
        atexit { if let folder = SlurmCluster.running.withLock({ $0 }) { _ = SlurmCluster.script(["down", folder], log: "/dev/null") } }
        return cluster
    }

    /// The folder of the cluster up, for the exit handler.
    private static let running = Mutex<String?>(nil)

    init() throws {
        folder = temporaryFolder().appendingPathComponent("slurm")
        let log = folder.deletingLastPathComponent().appendingPathComponent("cluster.log").path
        let status = SlurmCluster.script(["up", folder.path], log: log)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard status == 0, let line = output.split(separator: "\n").first(where: { $0.hasPrefix("SLURM_CONF=") }) else {
            throw ClusterError(message: "scripts/slurm-cluster up failed (scripts/setup installs slurmctld, slurmd, slurm-client and munge): \(output)")
        }
        environment = ["SLURM_CONF": String(line.dropFirst("SLURM_CONF=".count))]
    }

    /// Runs scripts/slurm-cluster with its output in `log`, and waits for it with waitpid:
    /// Foundation's Process loses track of a child that starts daemons here.
    static func script(_ arguments: [String], log: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([repositoryRoot.appendingPathComponent("scripts/slurm-cluster").path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0]!, &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }

    struct ClusterError: Error, CustomStringConvertible { let message: String; var description: String { message } }

    /// Runs a Slurm client command against this cluster.
    func client(_ command: String, _ arguments: [String], in folder: URL) throws -> Run {
        try run("/usr/bin/\(command)", arguments, in: folder, environment: environment)
    }

    /// Waits until every task of `job` has left the queue, and gives each task's state and exit code.
    func wait(for job: String, in folder: URL, timeout: Double = 120) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let queued = try client("squeue", ["-h", "-j", job], in: folder)
            if queued.status == 0 && queued.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { break }
            usleep(200_000)
        }
        let shown = try client("scontrol", ["show", "job", "-o", job], in: folder)
        return shown.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            func field(_ name: String) -> String { fields.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) } ?? "?" }
            return "\(field("ArrayTaskId")) \(field("JobState")) \(field("ExitCode"))"
        }.sorted()
    }
}

@Suite("A real cluster engine: a Slurm array runs a manifest", .serialized, .wholeSuite("a single-node Slurm cluster"))
struct SlurmTests {
    @Test("sbatch --array=0-2 with --shard auto --resume: every output once, retries change nothing, a cancelled task leaves nothing and completes when resubmitted")
    func slurmArray() throws {
        let cluster = try SlurmCluster.shared.get()
        let segue = try installedAlone()
        let work = try photoFolder()
        var manifest = "jobs:\n"
        let presets = ["stories-cube", "telegram-cube", "crossfade", "slide", "cube-fold", "instagram-zoom"]
        for (i, preset) in presets.enumerated() {
            manifest += "  - {name: job\(i + 1), preset: \(preset), inputs: [a.jpg, b.png, c.webp], output: out/job\(i + 1).mp4}\n"
        }
        try manifest.write(to: work.appendingPathComponent("six.yaml"), atomically: true, encoding: .utf8)
        let script = """
            #!/bin/sh
            exec \(segue) batch six.yaml --shard auto --resume --quiet --size 90x160 --set canvas.scale=0.25 --set hold=0.2 --report reports/task-$SLURM_ARRAY_TASK_ID.json

            """
        try script.write(to: work.appendingPathComponent("render.sh"), atomically: true, encoding: .utf8)

        func submit(_ array: String, _ file: String = "render.sh") throws -> String {
            let r = try cluster.client("sbatch", ["--parsable", "--array=\(array)", "--chdir=\(work.path)", "--output=\(work.path)/log-%A-%a.txt", file], in: work)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func logs() -> String {
            files(in: work.path).filter { $0.hasPrefix("log-") }.compactMap { try? String(contentsOf: work.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        }

        let first = try submit("0-2")
        #expect(try cluster.wait(for: first, in: work) == ["0 COMPLETED 0:0", "1 COMPLETED 0:0", "2 COMPLETED 0:0"], "\(logs())")
        let outputs = files(in: work.appendingPathComponent("out").path)
        #expect(outputs == (1...6).map { "job\($0).mp4" }, "\(outputs) \(logs())")
        for name in outputs {
            let probe = try tool("ffprobe", ["-v", "error", work.appendingPathComponent("out/" + name).path])
            #expect(probe.status == 0 && probe.stderr.isEmpty, "\(name)")
        }
        let done = try outputs.map { try FileManager.default.attributesOfItem(atPath: work.appendingPathComponent("out/" + $0).path)[.modificationDate] as! Date }

        // The array run again (a resubmission): every task completes, every output is kept.
        let again = try submit("0-2")
        #expect(try cluster.wait(for: again, in: work) == ["0 COMPLETED 0:0", "1 COMPLETED 0:0", "2 COMPLETED 0:0"], "\(logs())")
        let kept = try outputs.map { try FileManager.default.attributesOfItem(atPath: work.appendingPathComponent("out/" + $0).path)[.modificationDate] as! Date }
        #expect(kept == done)
        for task in 0...2 {
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: work.appendingPathComponent("reports/task-\(task).json"))) as! [String: Any]
            #expect(report["skipped"] as? Int == 2 && report["succeeded"] as? Int == 0, "task \(task): \(report)")
        }

        // A long job, cancelled while it renders, leaves nothing; resubmitted, it completes.
        try "jobs:\n  - {name: long, inputs: [a.jpg, b.png], output: out/long.mp4}\n".write(to: work.appendingPathComponent("long.yaml"), atomically: true, encoding: .utf8)
        try """
            #!/bin/sh
            exec \(segue) batch long.yaml --shard auto --resume --quiet --size 360x640 --set canvas.scale=1 --set hold=30

            """.write(to: work.appendingPathComponent("long.sh"), atomically: true, encoding: .utf8)
        let long = try submit("0-0", "long.sh")
        let deadline = Date().addingTimeInterval(60)
        while !files(in: work.appendingPathComponent("out").path).contains(where: { $0.contains("long.mp4.segue-tmp") }), Date() < deadline { usleep(50_000) }
        #expect(files(in: work.appendingPathComponent("out").path).contains { $0.contains("long.mp4.segue-tmp") }, "it never started: \(logs())")
        _ = try cluster.client("scancel", [long], in: work)
        let cancelled = try cluster.wait(for: long, in: work)
        #expect(cancelled.first?.contains("CANCELLED") == true, "\(cancelled)")
        #expect(files(in: work.appendingPathComponent("out").path) == outputs, "a cancelled task left: \(files(in: work.appendingPathComponent("out").path))")

        try """
            #!/bin/sh
            exec \(segue) batch long.yaml --shard auto --resume --quiet --size 360x640 --set canvas.scale=1 --set hold=1

            """.write(to: work.appendingPathComponent("long.sh"), atomically: true, encoding: .utf8)
        let resubmitted = try submit("0-0", "long.sh")
        #expect(try cluster.wait(for: resubmitted, in: work) == ["0 COMPLETED 0:0"], "\(logs())")
        #expect(try frameCount(work.appendingPathComponent("out/long.mp4").path) == 75)
    }

    @Test("a story as sbatch --array=0-3 chunk tasks (--chunk auto: three video chunks and the sound) and an afterok join task that only copies: one machine's frames and sound; a requeued task and a resubmitted array keep their chunks")
    func slurmChunks() throws {
        let cluster = try SlurmCluster.shared.get()
        let segue = try installedAlone()
        let work = temporaryFolder().appendingPathComponent("chunks")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let story = try chunkStory(in: work)
        let size = "--size 180x320 --set canvas.scale=0.5"
        try "#!/bin/sh\nexec \(segue) render --story \(story) -o out/trip.mp4 \(size) --chunk auto --resume\n"
            .write(to: work.appendingPathComponent("chunk.sh"), atomically: true, encoding: .utf8)
        try "#!/bin/sh\nexec \(segue) join --story \(story) -o out/trip.mp4 \(size) --resume\n"
            .write(to: work.appendingPathComponent("join.sh"), atomically: true, encoding: .utf8)
        func sbatch(_ options: [String], _ file: String) throws -> String {
            let r = try cluster.client("sbatch", ["--parsable", "--chdir=\(work.path)", "--output=\(work.path)/log-%A-%a.txt"] + options + [file], in: work)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func logs() -> String {
            files(in: work.path).filter { $0.hasPrefix("log-") }.compactMap { try? String(contentsOf: work.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        }
        let chunks = try sbatch(["--array=0-3"], "chunk.sh")
        let join = try sbatch(["--dependency=afterok:\(chunks)"], "join.sh")
        #expect(try cluster.wait(for: chunks, in: work) == (0...3).map { "\($0) COMPLETED 0:0" }, "\(logs())")
        #expect(try cluster.wait(for: join, in: work).first?.contains("COMPLETED 0:0") == true, "\(logs())")
        let out = work.appendingPathComponent("out/trip.mp4").path
        let single = work.appendingPathComponent("single.mp4").path
        #expect(try run(segue, ["render", "--story", story, "-o", single] + size.split(separator: " ").map(String.init), in: work).status == 0)
        #expect(try frameCount(out) == 165)
        #expect(try decodedChecksums(out, stream: "a", copy: true) == (try decodedChecksums(single, stream: "a", copy: true)), "the sound differs from one machine's")
        let names = files(in: out + ".chunks")
        #expect(names == (1...3).map { "chunk-00\($0)-of-003.mp4" } + ["sound.m4a"], "\(names)")
        // The join rendered nothing: the sound chunk came from the array's last task.
        #expect(!logs().contains("rendered the missing chunk") && logs().contains("joined 3 chunks"), "\(logs())")
        func times() throws -> [Date] { try names.map { try FileManager.default.attributesOfItem(atPath: out + ".chunks/" + $0)[.modificationDate] as! Date } }
        let done = try times()

        // A finished task requeued, then the whole array resubmitted: every chunk is kept.
        let requeue = try cluster.client("scontrol", ["requeue", "\(chunks)_2"], in: work)
        #expect(requeue.status == 0, "\(requeue.stderr)")
        // Slurm holds a requeued job back a while (its begin time); let it start now.
        _ = try cluster.client("scontrol", ["update", "JobId=\(chunks)_2", "StartTime=now"], in: work)
        #expect(try cluster.wait(for: chunks, in: work) == (0...3).map { "\($0) COMPLETED 0:0" }, "\(logs())")
        let again = try sbatch(["--array=0-3"], "chunk.sh")
        #expect(try cluster.wait(for: again, in: work) == (0...3).map { "\($0) COMPLETED 0:0" }, "\(logs())")
        #expect(try times() == done, "a chunk was rendered again")
        #expect(logs().components(separatedBy: "segue: kept").count - 1 >= 5, "\(logs())")
    }

    @Test("segue serve --executor slurm: each render a job of the cluster, its frames segue render's, its progress seen; cancelled, its job leaves the queue; the service killed mid-job and started again watches that job to its end, once; sbatch's refusal fails the render, saying so")
    func serveOnSlurm() throws {
        let cluster = try SlurmCluster.shared.get()
        let (seen, folder) = try ServeTests.drive("python3", scenario: "slurm", environment: cluster.environment.map { "\($0.key)=\($0.value)" })
        func texts(_ key: String) -> String { ServeTests.json(seen[key] ?? NSNull()) }
        #expect(texts("render") == ServeTests.json(["done", 1, true, 200, NSNull()] as [Any]), "\(texts("render"))")
        #expect(texts("cancel") == ServeTests.json(["rendering", true, 200, "cancelled", true] as [Any]), "\(texts("cancel"))")
        // Not queued again at the restart: its job ran on, and ran once.
        #expect((seen["restart_line"] as? String)?.contains("queued again") == false && (seen["restart_line"] as? String)?.contains("1 renders running as the cluster's jobs, watched on") == true,
                "\(texts("restart_line"))")
        #expect(texts("after_kill") == ServeTests.json(["done", 1, true, 1, true] as [Any]), "\(texts("after_kill"))")
        #expect(texts("hooks") == ServeTests.json([["/hook", true, "render.done"]] as [Any]) && texts("leftovers") == "[]", "\(texts("hooks")) \(texts("leftovers"))")
        let refused = seen["refused"] as? [Any] ?? []
        #expect(refused.first as? String == "failed" && (refused.last as? String)?.contains("sbatch") == true, "\(texts("refused"))")
        try ServeTests.expectServedIsRendered(in: folder)
    }
}
