package import Foundation
package import OpenAPIRuntime
package import Segue

/// The caller's token (its digest's start; "local" when no token is asked), set by the
/// server's guard for each request.
enum Caller {
    @TaskLocal static var token = "local"
    /// The request's body as it came (read whole by the guard), for the reader of stories.
    @TaskLocal static var body: String?
}

/// The service's operations, as its OpenAPI document names them (Generated/ has their types).
struct ServeAPI: APIProtocol {
    let store: JobStore
    let executor: any Executor
    let settings: ServeSettings

    func createRender(_ input: Operations.CreateRender.Input) async throws -> Operations.CreateRender.Output {
        let id = "r_" + ServeDocuments.randomHex(12)
        var uploads: String?, filesDigest = ""
        // Files sent with a request that is not queued are not kept.
        var keepsFiles = false
        defer { if let uploads, !keepsFiles { try? FileManager.default.removeItem(atPath: uploads) } }
        do {
            let text: String
            switch input.body {
            case let .json(body):
                // Read again by the story reader, from the text as it came (its lines are the
                // errors' lines) when the guard kept it.
                text = try Caller.body ?? String(decoding: ServeDocuments.encoder.encode(body), as: UTF8.self)
            case let .yaml(body):
                do { text = String(decoding: try await Data(collecting: body, upTo: settings.maxBody), as: UTF8.self) } catch {
                    throw ServeProblem(status: 413, title: "Body too large", detail: "the body is over \(settings.maxBody) bytes")
                }
            case let .multipartForm(form):
                uploads = store.uploadFolder(id)
                (text, filesDigest) = try await Uploads.receive(form, into: store.uploadFolder(id), limit: settings.maxUpload, requestLimit: settings.maxBody)
            }
            let token = Caller.token
            let prepared = try await Workers.run { [uploads, filesDigest] in
                try self.prepare(text, id: id, uploads: uploads, filesDigest: filesDigest, key: input.headers.idempotencyKey, token: token)
            }
            let store = self.store
            let admission = try await store.admit(prepared, limit: settings.maxQueued, budget: settings.maxTokenPixelFrames) { made in
                FileManager.default.fileExists(atPath: ServeDocuments.outputPath(store, made))
            }
            switch admission {
            case let .created(record):
                keepsFiles = record.status == "queued"
                executor.wake()
                let document = ServeDocuments.render(record)
                if record.status == "done" { return .ok(.init(headers: .init(location: document.links._self), body: .json(document))) }
                return .accepted(.init(headers: .init(location: document.links._self, idempotentReplayed: ._false), body: .json(document)))
            case let .replayed(record):
                let document = ServeDocuments.render(record, deliveries: try store.deliveries(of: record.id))
                return .accepted(.init(headers: .init(location: document.links._self, idempotentReplayed: ._true), body: .json(document)))
            case .keyReused:
                return .unprocessableContent(ServeProblem.invalid("Idempotency-Key '\(input.headers.idempotencyKey ?? "")' was used with another body",
                                                                  errors: [.init(message: "key used with another body", key: "Idempotency-Key")]).response)
            case let .overLimit(count):
                return .tooManyRequests(ServeProblem(status: 429, title: "Too many renders", detail: "\(count) renders of this token wait or run, the limit (--max-queued)").response)
            case let .overBudget(work):
                return .tooManyRequests(ServeProblem(status: 429, title: "Over the pixel budget",
                                                     detail: "this token's renders waiting or running compose \(work) pixel-frames; with this one that is over the limit of \(settings.maxTokenPixelFrames) (--max-token-pixel-frames)").response)
            }
        } catch let problem as ServeProblem {
            switch problem.status {
            case 413: return .contentTooLarge(problem.response)
            case 503: return .serviceUnavailable(problem.response)
            default: return .unprocessableContent(problem.response)
            }
        } catch {
            return .unprocessableContent(ServeProblem.invalid("\(error)", errors: ServeProblem.errors(of: error)).response)
        }
    }

    /// The render a request asks for, read and checked (on a worker's thread: it reads the
    /// story's inputs), to be stored.
    private func prepare(_ text: String, id: String, uploads: String?, filesDigest: String, key: String?, token: String) throws -> RenderRecord {
        let ask = try RenderAsk(text: text)
        let (job, fingerprint) = try ask.job(inputs: settings.inputs, uploads: uploads, output: "\(store.outputs)/\(id).\(ask.format)",
                                             limits: Limits(maxPixelFrames: settings.maxPixelFrames), threads: 1, library: settings.presets) {
            ($0, try Fingerprint.of($0))
        }
        var record = RenderRecord(id: id, token: token, idempotencyKey: key, bodyDigest: ServeDocuments.digest(ask.canonical + filesDigest), request: text,
                                  format: ask.format, webhook: ask.webhook, metadata: ask.metadata, status: "queued", now: JobStore.now)
        record.fingerprint = fingerprint
        record.framesTotal = job.timeline.frameCount
        let work = job.timeline.frameCount.multipliedReportingOverflow(by: job.preset.canvas.width * job.preset.canvas.height)
        record.pixelFrames = work.overflow ? .max : work.partialValue
        return record
    }

    func listRenders(_ input: Operations.ListRenders.Input) async throws -> Operations.ListRenders.Output {
        var after: Int?
        if let text = input.query.after {
            guard let seq = Int(text), seq > 0 else { return .badRequest(ServeProblem(status: 400, title: "Bad request", detail: "after: '\(text)' is not a page's next").response) }
            after = seq
        }
        let page = try store.list(status: input.query.status?.rawValue, limit: min(100, max(1, input.query.limit ?? 20)), after: after)
        return .ok(.init(body: .json(.init(renders: page.renders.map { ServeDocuments.render($0) }, next: page.next.map(String.init)))))
    }

    func getRender(_ input: Operations.GetRender.Input) async throws -> Operations.GetRender.Output {
        guard let record = try store.render(input.path.id) else { return .notFound(ServeProblem.notFound(input.path.id).response) }
        return .ok(.init(body: .json(ServeDocuments.render(record, deliveries: try store.deliveries(of: record.id)))))
    }

    func cancelRender(_ input: Operations.CancelRender.Input) async throws -> Operations.CancelRender.Output {
        let id = input.path.id
        guard try store.render(id) != nil else { return .notFound(ServeProblem.notFound(id).response) }
        if !executor.cancel(id) { try store.end(id, status: "cancelled") }
        // A running render stops within a frame; its end is in the store a moment later.
        for _ in 0..<40 {
            if let record = try store.render(id), record.hasEnded { return .ok(.init(body: .json(ServeDocuments.render(record)))) }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return .ok(.init(body: .json(ServeDocuments.render(try store.render(id)!))))
    }

    func renderEvents(_ input: Operations.RenderEvents.Input) async throws -> Operations.RenderEvents.Output {
        let id = input.path.id
        guard try store.render(id) != nil else { return .notFound(ServeProblem.notFound(id).response) }
        let store = self.store
        let events = AsyncStream<ArraySlice<UInt8>> { continuation in
            let task = Task {
                var last = ""
                while !Task.isCancelled, let record = try? store.render(id) {
                    let json = (try? ServeDocuments.json(record)) ?? "{}"
                    if json != last {
                        continuation.yield(ArraySlice("event: status\ndata: \(json)\n\n".utf8))
                        last = json
                    }
                    if record.hasEnded { break }
                    try? await Task.sleep(nanoseconds: 250_000_000)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return .ok(.init(body: .textEventStream(HTTPBody(events, length: .unknown, iterationBehavior: .single))))
    }

    func getOutput(_ input: Operations.GetOutput.Input) async throws -> Operations.GetOutput.Output {
        let id = input.path.id
        guard let record = try store.render(id) else { return .notFound(ServeProblem.notFound(id).response) }
        guard record.status == "done" else {
            return .conflict(ServeProblem(status: 409, title: "Not done", detail: "render \(id) is \(record.status): its output is served once it is done").response)
        }
        let path = ServeDocuments.outputPath(store, record)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .notFound(ServeProblem(status: 404, title: "Not found", detail: "render \(id)'s output is no longer in the store").response)
        }
        let size = Int(try handle.seekToEnd())
        var range = 0..<size
        if let text = input.headers.range {
            guard let asked = ByteRange.parse(text, size: size) else {
                return .rangeNotSatisfiable(ServeProblem(status: 416, title: "Range not satisfiable", detail: "Range '\(text)': expected bytes=START-END within \(size) bytes").response)
            }
            range = asked
        }
        let body = HTTPBody(ByteRange.chunks(of: handle, range), length: .known(Int64(range.count)), iterationBehavior: .single)
        let content: Operations.GetOutput.Output.Ok.Body = switch record.format {
        case "webm": .videoWebm(body)
        case "mov": .videoQuicktime(body)
        case "gif": .imageGif(body)
        case "webp": .imageWebp(body)
        default: .videoMp4(body)
        }
        guard input.headers.range != nil else { return .ok(.init(headers: .init(contentLength: size, acceptRanges: "bytes"), body: content)) }
        let partial: Operations.GetOutput.Output.PartialContent.Body = switch content {
        case let .videoWebm(b): .videoWebm(b)
        case let .videoQuicktime(b): .videoQuicktime(b)
        case let .imageGif(b): .imageGif(b)
        case let .imageWebp(b): .imageWebp(b)
        case let .videoMp4(b): .videoMp4(b)
        }
        return .partialContent(.init(headers: .init(contentRange: "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)", contentLength: range.count), body: partial))
    }

    func health(_ input: Operations.Health.Input) async throws -> Operations.Health.Output {
        let counts = try store.counts()
        return .ok(.init(body: .json(.init(status: .serving, queued: counts.queued, running: counts.running, version: SegueVersion.number))))
    }
}

/// One range of a `Range: bytes=...` header, within a file of `size` bytes.
enum ByteRange {
    static func parse(_ text: String, size: Int) -> Range<Int>? {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = text.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces), last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let length = Int(last), length > 0 else { return nil }
            return max(0, size - length)..<size
        }
        guard let start = Int(first), start < size else { return nil }
        if last.isEmpty { return start..<size }
        guard let end = Int(last), end >= start else { return nil }
        return start..<(min(end, size - 1) + 1)
    }

    /// The bytes of `range` of the file, read 256 KiB at a time as they are sent.
    static func chunks(of handle: FileHandle, _ range: Range<Int>) -> AsyncStream<ArraySlice<UInt8>> {
        let reading = Locked((handle: handle, offset: range.lowerBound))
        return AsyncStream(unfolding: {
            reading.withLock { reading -> ArraySlice<UInt8>? in
                guard reading.offset < range.upperBound else { try? reading.handle.close(); return nil }
                try? reading.handle.seek(toOffset: UInt64(reading.offset))
                let data = reading.handle.readData(ofLength: min(256 << 10, range.upperBound - reading.offset))
                guard !data.isEmpty else { try? reading.handle.close(); return nil }
                reading.offset += data.count
                return ArraySlice(data)
            }
        })
    }
}
