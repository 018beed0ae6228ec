package import Foundation
package import Segue

/// How `segue serve` runs: where it listens, keeps its jobs and finds inputs, how many renders
/// run at once, and its limits.
public struct ServeSettings: Sendable {
    public var host = "127.0.0.1"
    public var port = 7460
    /// The folder of the job database (`jobs.sqlite`, WAL) and the outputs (`outputs/`).
    public var store: String
    /// The folders a story may name files in; relative paths are taken from the first.
    public var inputs: [String]
    /// Renders run at once; each gets its share of the cores.
    public var workers = 1
    /// The bearer tokens accepted (a file's lines); none: no token asked (loopback only).
    public var tokens: [String] = []
    /// The webhooks' secret, as Standard Webhooks writes it (`whsec_` and base64).
    public var webhookSecret: String
    /// Renders queued or running that one token may have.
    public var maxQueued = 10_000
    /// Pixels x frames one render may compose.
    public var maxPixelFrames = 20_000_000_000
    /// Pixels x frames one token's renders waiting and running may compose together.
    public var maxTokenPixelFrames = 200_000_000_000
    /// The largest request body read, in bytes.
    public var maxBody = 1 << 20
    /// The most bytes of files one request may send (multipart/form-data).
    public var maxUpload = 512 << 20
    /// Who renders: `local` (the service's workers) or `slurm` (a cluster's jobs).
    public var executor = "local"
    /// The segue a cluster's job runs (`segue serve-task`), at the same path on every node.
    public var segue = "/usr/bin/segue"
    /// sbatch's options for every render's job (`--partition=...`, `--cpus-per-task=...`).
    public var slurmOptions: [String] = []
    /// The webhook's tries and the waits between them (seconds).
    public var webhookWaits: [Double] = [1, 3, 7, 15, 30]
    /// Seconds a receiver has to answer one try.
    public var webhookTimeout = 15.0
    /// Where stories find their presets: nil, as `segue render` finds them (`SEGUE_PRESETS`,
    /// then the built-in ones), looked up once when the service starts.
    package var presets: PresetLibrary?

    public init(store: String, inputs: [String], webhookSecret: String) {
        self.store = store
        self.inputs = inputs
        self.webhookSecret = webhookSecret
    }

    /// These settings with `presets` looked up, when not given.
    func findingPresets() throws -> ServeSettings {
        var settings = self
        settings.presets = try presets ?? PresetLibrary.standard()
        return settings
    }

    /// True when `host` is only this machine's.
    public static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "localhost", "::1"].contains(host.lowercased()) || host.hasPrefix("127.")
    }

    /// A new secret in Standard Webhooks' form: `whsec_` and 24 random bytes in base64.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }
}

/// A refusal of the service's, answered as a problem document (RFC 9457).
struct ServeProblem: Error {
    var status: Int
    var title: String
    var detail: String
    var errors: [Components.Schemas.RenderError] = []

    var document: Components.Schemas.Problem {
        .init(_type: "https://segue.invalid/problems/\(title.lowercased().replacingOccurrences(of: " ", with: "-"))", title: title, status: status,
              detail: detail, errors: errors.isEmpty ? nil : errors)
    }

    var response: Components.Responses.Problem { .init(body: .applicationProblemJson(document)) }

    static func notFound(_ id: String) -> ServeProblem { ServeProblem(status: 404, title: "Not found", detail: "no render \(id)") }
    static func invalid(_ detail: String, errors: [Components.Schemas.RenderError] = []) -> ServeProblem {
        ServeProblem(status: 422, title: "Unprocessable request", detail: detail, errors: errors)
    }

    /// The problems of a story or job error, each with its file, line and key where it has them.
    static func errors(of error: any Error) -> [Components.Schemas.RenderError] {
        guard let preset = error as? PresetError else { return [.init(message: "\(error)")] }
        return preset.all.map { one in
            var entry = Components.Schemas.RenderError(message: one.description)
            switch one {
            case let .unknownKey(key, origin, _), let .missingKey(key, origin, _), let .wrongType(key, origin, _, _),
                 let .outOfRange(key, origin, _, _), let .invalid(key, origin, _, _), let .inside(key, origin, _):
                entry.key = key
                if case let .file(name, line) = origin { entry.file = name; entry.line = line }
            case let .unreadable(path, _): entry.file = path
            default: break
            }
            return entry
        }
    }
}
