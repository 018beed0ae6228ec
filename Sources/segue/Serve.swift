import ArgumentParser
import Foundation
import Segue
import SegueServe

/// `segue serve`: the render service (docs/serve.md).
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serves a render API: stories in, videos out, every job kept in SQLite so that none is lost or done twice.",
        discussion: """
            The API is at /v1/renders (POST a story, GET its status, events and output, DELETE \
            to cancel) and described by /openapi.json. Stories may name files only inside the \
            --inputs folders. It listens on loopback unless --host says otherwise, and then \
            asks every request for a token of --token-file. docs/serve.md has examples.
            """
    )

    @Option(help: ArgumentHelp("The port; 0 picks a free one.", valueName: "N"))
    var port = 7460

    @Option(help: ArgumentHelp("The address to listen on; anything but loopback needs --token-file.", valueName: "ADDRESS"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The folder of the jobs (jobs.sqlite) and their outputs (outputs/); made if missing.", valueName: "DIR"))
    var store = "segue-store"

    @Option(help: ArgumentHelp("A folder stories may read files from (relative paths are taken from the first); repeatable.", valueName: "DIR"))
    var inputs: [String] = []

    @Option(help: ArgumentHelp("Renders at once: local ones share the cores; slurm ones are the cluster's jobs at once.", valueName: "N"))
    var workers = 1

    @Option(help: ArgumentHelp("Who renders: local (this service's workers) or slurm (a job of the cluster for each render, by sbatch).", valueName: "KIND"))
    var executor = "local"

    @Option(name: .customLong("slurm-option"), help: ArgumentHelp("An sbatch option for every render's job (--slurm-option=--partition=render); repeatable.", valueName: "OPTION"))
    var slurmOptions: [String] = []

    @Option(help: ArgumentHelp("The segue a cluster's job runs, at the same path on every node; default: this one.", valueName: "PATH"))
    var slurmSegue: String?

    @Option(help: ArgumentHelp("A file of bearer tokens, one a line: every request must give one.", valueName: "FILE"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("The webhooks' secret, whsec_ and base64 (Standard Webhooks); default: the store's webhook-secret, made on first start.", valueName: "FILE"))
    var webhookSecretFile: String?

    @Option(help: ArgumentHelp("Renders one token may have queued or running.", valueName: "N"))
    var maxQueued = 10_000

    @Option(help: ArgumentHelp("Pixels x frames one render may compose (1080x1920 for 60 s at 30 fps is 3.7e9).", valueName: "N"))
    var maxPixelFrames = 20_000_000_000

    @Option(help: ArgumentHelp("Pixels x frames one token's renders waiting or running may compose together.", valueName: "N"))
    var maxTokenPixelFrames = 200_000_000_000

    @Option(help: ArgumentHelp("The most bytes of files one request may send with its story (multipart/form-data).", valueName: "BYTES"))
    var maxUpload = 512 << 20

    @Option(help: ArgumentHelp("The waits between a webhook's tries, in seconds; one try more than waits.", valueName: "S,S,..."))
    var webhookWaits = "1,3,7,15,30"

    @Option(help: ArgumentHelp("Seconds a webhook's receiver has to answer one try.", valueName: "S"))
    var webhookTimeout = 15.0

    /// --webhook-waits as numbers, or nil when it is not a list of waits.
    var waits: [Double]? {
        let numbers = webhookWaits.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? -1) >= 0 && ($0 ?? 0) <= 86_400 }) else { return nil }
        return numbers.compactMap { $0 }
    }

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("--inputs: give the folder (or folders) stories may read files from.") }
        for folder in inputs {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--inputs \(folder): no such folder.")
            }
        }
        if workers < 1 || workers > 64 { throw ValidationError("--workers \(workers): expected 1 to 64.") }
        guard Executors.names.contains(executor) else { throw ValidationError("--executor \(executor): expected one of \(Executors.names.joined(separator: ", ")).") }
        if executor != "slurm", !slurmOptions.isEmpty || slurmSegue != nil {
            throw ValidationError("--slurm-option, --slurm-segue: only with --executor slurm.")
        }
        if !ServeSettings.isLoopback(host), tokenFile == nil {
            throw ValidationError("--host \(host): beyond loopback every request needs a token; give --token-file FILE.")
        }
        if maxUpload < 0 { throw ValidationError("--max-upload \(maxUpload): expected 0 or more bytes.") }
        if waits == nil { throw ValidationError("--webhook-waits \(webhookWaits): expected seconds from 0 to 86400, split by commas (1,3,7,15,30).") }
        if !(webhookTimeout > 0 && webhookTimeout <= 600) { throw ValidationError("--webhook-timeout \(webhookTimeout): expected seconds over 0, at most 600.") }
        if maxQueued < 1 { throw ValidationError("--max-queued \(maxQueued): expected 1 or more.") }
        if maxPixelFrames < 1 || maxTokenPixelFrames < 1 {
            throw ValidationError("--max-pixel-frames \(maxPixelFrames), --max-token-pixel-frames \(maxTokenPixelFrames): expected 1 or more.")
        }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let absolute = { (path: String) in path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path }
        var settings = ServeSettings(store: absolute(store), inputs: inputs.map(absolute), webhookSecret: try secret())
        settings.host = host
        settings.port = port
        settings.workers = workers
        settings.executor = executor
        settings.slurmOptions = slurmOptions
        settings.segue = slurmSegue.map(absolute) ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        settings.maxQueued = maxQueued
        settings.maxPixelFrames = maxPixelFrames
        settings.maxTokenPixelFrames = maxTokenPixelFrames
        settings.webhookWaits = waits ?? settings.webhookWaits
        settings.webhookTimeout = webhookTimeout
        settings.maxUpload = maxUpload
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else { throw ValidationError("--token-file \(tokenFile): cannot be read.") }
            settings.tokens = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if settings.tokens.isEmpty { throw ValidationError("--token-file \(tokenFile): no token in it (expected one a line).") }
        }
        let ended = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        let store = self.store
        Task {
            do {
                try await ServeServer.run(settings) { address, requeued, watched in
                    let again = (requeued == 0 ? "" : "; \(requeued) interrupted renders queued again")
                        + (watched == 0 ? "" : "; \(watched) renders running as the cluster's jobs, watched on")
                    FileHandle.standardOutput.write(Data("segue: serving at \(address) (store \(store)\(again))\n".utf8))
                }
            } catch {
                failure.withLock { $0 = error }
            }
            ended.signal()
        }
        ended.wait()
        if let error = failure.withLock({ $0 }) { throw ServeFailed(message: "serve: \(error)") }
    }

    /// The webhook secret: --webhook-secret-file's, or the store's own, made once.
    func secret() throws -> String {
        let file = webhookSecretFile ?? store + "/webhook-secret"
        if let text = try? String(contentsOfFile: file, encoding: .utf8) {
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard secret.hasPrefix("whsec_"), Data(base64Encoded: String(secret.dropFirst(6))) != nil else {
                throw ValidationError("--webhook-secret-file \(file): expected whsec_ and base64, as Standard Webhooks writes a secret.")
            }
            return secret
        }
        guard webhookSecretFile == nil else { throw ValidationError("--webhook-secret-file \(file): cannot be read.") }
        let secret = ServeSettings.newSecret()
        FileManager.default.createFile(atPath: file, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        return secret
    }
}

struct ServeFailed: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// `segue serve-task FOLDER`: one render of `segue serve --executor slurm`, as its cluster
/// job runs it (not for people: the service writes the folder and submits the job).
struct ServeTask: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve-task", abstract: "Runs one render of segue serve's Slurm jobs.", shouldDisplay: false)

    @Argument(help: "The task's folder in the service's store.")
    var folder: String

    func run() throws {
        Interruption.shared.install()
        if try !SlurmTask.run(folder: folder, cancellation: Interruption.shared.cancellation) { throw ExitCode(1) }
    }
}
