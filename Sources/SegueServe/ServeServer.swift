import Crypto
package import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIHummingbird
package import Segue

/// `segue serve`'s HTTP server: the OpenAPI document's routes (generated, Generated/) over
/// Hummingbird, behind a guard that asks for the bearer token, bounds bodies and answers every
/// refusal and error as a problem document; the store, the executor and the webhook sender
/// started beside it.
public enum ServeServer {
    /// Serves until the process is stopped; `ready` gets the address once it listens, the
    /// count of renders a killed service left running, queued again, and of those running on
    /// as a cluster's jobs, watched on.
    public static func run(_ asked: ServeSettings, ready: @escaping @Sendable (_ address: String, _ requeued: Int, _ watched: Int) -> Void) async throws {
        let settings = try asked.findingPresets()
        let store = try JobStore(folder: settings.store)
        let kind = Executors.kinds[settings.executor] ?? Executors.kinds["local"]!
        let requeued = try store.requeueInterrupted(keeping: kind.outlivesService)
        let executor = kind.make(store, settings)
        let watched = try store.assigned().count
        let webhooks = Webhooks(store: store, settings: settings)
        let router = Router()
        router.add(middleware: ServeGuard(settings: settings))
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json)))
        }
        // Answers as ServeDocuments writes its own: keys sorted, slashes as they are; indented for people.
        try ServeAPI(store: store, executor: executor, settings: settings)
            .registerHandlers(on: router, configuration: .init(jsonEncodingOptions: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]))
        var logger = Logger(label: "segue serve")
        logger.logLevel = .error
        let app = Application(router: router, server: .http1(configuration: .init(idleTimeout: .seconds(60))),
                              configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "segue"),
                              onServerRunning: { channel in
                                  executor.start()
                                  let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
                                  ready("http://\(host):\(channel.localAddress?.port ?? settings.port)/", requeued, watched)
                              }, logger: logger)
        // The store is whole at every moment: a signal ends the service at once.
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { exit(128 + number) }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        // The store's log copied into it beside the writes, from a thread of its own.
        Workers.start {
            while true {
                usleep(250_000)
                try? store.checkpoint()
            }
        }
        let sender = Task { await webhooks.run() }
        defer { sender.cancel() }
        try await app.runService(gracefulShutdownSignals: [])
    }

    /// The token's name in the store: the start of its SHA-256, never the token.
    static func tokenName(_ token: String) -> String {
        "t_" + ServeDocuments.hex(SHA256.hash(data: Data(token.utf8)).prefix(8))
    }
}

/// Every request: its token checked (when the service has tokens), its body bounded, and
/// whatever goes wrong answered as a problem document.
struct ServeGuard<Context: RequestContext>: RouterMiddleware {
    let settings: ServeSettings

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var token = "local"
        if !settings.tokens.isEmpty, request.uri.path.hasPrefix("/v1/"), request.uri.path != "/v1/health" {
            let given = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            guard let given, settings.tokens.contains(given) else {
                var response = ServeGuard.problem(.init(status: 401, title: "Unauthorized", detail: "expected Authorization: Bearer TOKEN, a token of --token-file"))
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
            token = ServeServer.tokenName(given)
        }
        var request = request
        // Files sent with a render are streamed to the store as they come (Uploads.swift), and
        // counted there; every other body is read whole, bounded.
        let sendsFiles = request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true
        let bound = sendsFiles ? settings.maxUpload + settings.maxBody : settings.maxBody
        if let length = request.headers[.contentLength].flatMap(Int.init), length > bound {
            return ServeGuard.problem(.init(status: 413, title: "Body too large", detail: "the body is \(length) bytes, over the limit of \(bound)"))
        }
        var body: String?
        if !sendsFiles {
            do {
                body = String(buffer: try await request.collectBody(upTo: settings.maxBody))
            } catch {
                return ServeGuard.problem(.init(status: 413, title: "Body too large", detail: "the body is over the limit of \(settings.maxBody) bytes"))
            }
            // A JSON render request is read from its text by the story reader (RenderAsk), which
            // names each problem's key and line; the generated code, whose decoding of the
            // story would be thrown away, is given an empty request.
            if request.method == .post, request.uri.path == "/v1/renders",
               request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true {
                request.body = .init(buffer: ByteBuffer(string: "{}"))
            }
        }
        do {
            var response = try await Caller.$token.withValue(token) {
                try await Caller.$body.withValue(body) { try await next(request, context) }
            }
            // The generated code percent-encodes header values; these two are read as written.
            for name in [HTTPField.Name.location, .contentRange] {
                if let value = response.headers[name] { response.headers[name] = value.removingPercentEncoding ?? value }
            }
            return response
        } catch let error as HTTPResponseError {
            let status = Int(error.status.code)
            return ServeGuard.problem(.init(status: status, title: error.status.reasonPhrase,
                                            detail: status == 404 ? "no route \(request.method) \(request.uri.path)" : "\(error)"))
        } catch {
            // The generated code's refusals: a parameter or body that breaks the document.
            let words = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
            return ServeGuard.problem(.init(status: 400, title: "Bad request", detail: words))
        }
    }

    static func problem(_ problem: ServeProblem) -> Response {
        let body = (try? ServeDocuments.encoder.encode(problem.document)) ?? Data()
        return Response(status: .init(code: problem.status), headers: [.contentType: "application/problem+json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
