import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Segue

/// `segue preview`'s web server: the page (embedded in the binary), the story as JSON, the
/// proxy video with range requests, frames at full resolution, thumbnails, server-sent events
/// after each build, the row picker and the export. Every route is named here; nothing is
/// served by a path from the request. Requests whose Host is not the server's own are refused
/// (DNS rebinding), and the ones that change something also need the server's Origin.
public enum PreviewServer {
    /// Serves `settings.story` until the process is stopped. `ready` is called with the
    /// page's address once the server listens.
    public static func run(_ settings: PreviewSettings, ready: @escaping @Sendable (String) -> Void) async throws {
        let session = try PreviewSession(settings: settings)
        defer { session.stop() }
        let port = Locked(settings.port)
        let router = Router()
        router.add(middleware: Guard(settings: settings, port: port))
        routes(router, session: session)
        var logger = Logger(label: "segue preview")
        logger.logLevel = .error
        let app = Application(router: router, server: HTTPServerBuilder { CheckedHTTP1(inner: HTTP1Channel(responder: $0)) }, configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "segue"),
                              onServerRunning: { channel in
                                  let bound = channel.localAddress?.port ?? settings.port
                                  port.withLock { $0 = bound }
                                  session.startWatching()
                                  let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
                                  ready("http://\(host):\(bound)/")
                              }, logger: logger)
        // Ctrl-C or SIGTERM ends the server at once: the page's event streams never end by
        // themselves, so a graceful shutdown would wait for them forever. It exits as `render`
        // does when stopped so: 128 and the signal's number (130, 143).
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                session.stop()
                exit(128 + number)
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await app.runService(gracefulShutdownSignals: [])
        } catch let error as IOError {
            throw CannotServe(reason: "\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))")
        } catch is SocketAddressError.UnknownHost {
            throw CannotServe(reason: "no such host")
        } catch let error as SocketAddressError {
            throw CannotServe(reason: "not an address (\(error))")
        }
    }

    /// The server could not listen: the address is not this machine's, the port is taken or
    /// needs privileges. `reason` is the system's, as a person reads it.
    public struct CannotServe: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    static func routes(_ router: Router<BasicRequestContext>, session: PreviewSession) {
        router.get("/") { _, _ in page(PackageResources.index_html, type: "text/html; charset=utf-8") }
        router.get("/page.js") { _, _ in page(PackageResources.page_js, type: "text/javascript; charset=utf-8") }
        router.get("/page.css") { _, _ in page(PackageResources.page_css, type: "text/css; charset=utf-8") }
        router.get("/icon.svg") { _, _ in page(PackageResources.icon_svg, type: "image/svg+xml") }
        router.get("/favicon.ico") { _, _ in page(PackageResources.icon_svg, type: "image/svg+xml") }
        router.get("/api/story") { _, _ in json(StoryReply(session)) }
        router.get("/events") { _, _ in
            let stream = session.listen()
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                            body: ResponseBody { writer in
                                try await writer.write(ByteBuffer(string: ": segue preview\n\n"))
                                for await event in stream { try await writer.write(ByteBuffer(string: event)) }
                                try await writer.finish(nil)
                            })
        }
        router.get("/proxy.mp4") { request, _ in
            guard let proxy = session.state.withLock({ $0.good?.proxy }) else { return problem(.notFound, "no preview yet: the story has not read") }
            return ranged(proxy, request: request, type: "video/mp4")
        }
        png(router, "/frame", what: "a frame number", cache: "no-store") { try await session.frame($0) }
        png(router, "/thumb", what: "a slide number", cache: "max-age=3600") { try await session.thumbnail($0) }
        router.post("/api/row") { request, _ in
            guard let text = request.uri.queryParameters["index"], let row = Int(text) else { return problem(.badRequest, "expected ?index=N, a row from 0") }
            do { try session.pick(row: row) } catch { return problem(.badRequest, "\(error)") }
            return json(["row": row])
        }
        router.post("/api/export") { _, _ in
            do { try session.export() } catch { return problem(.conflict, "\(error)") }
            return json(session.state.withLock { $0.export })
        }
    }

    /// `PATH/:n`, a PNG that `draw` makes of number n; a 404 with the reason when it cannot.
    static func png(_ router: Router<BasicRequestContext>, _ path: String, what: String, cache: String,
                    draw: @escaping @Sendable (Int) async throws -> [UInt8]) {
        router.get("\(path)/:n") { _, context in
            guard let n = context.parameters.get("n", as: Int.self) else { return problem(.notFound, "expected \(path)/N, \(what)") }
            do {
                return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: cache],
                                body: .init(byteBuffer: ByteBuffer(bytes: try await draw(n))))
            } catch let error as PreviewRequestError {
                guard case .busy = error else { return problem(.notFound, "\(error)") }
                var busy = problem(.serviceUnavailable, "\(error)")
                busy.headers[.retryAfter] = "1"
                return busy
            } catch {
                return problem(.notFound, "\(error)")
            }
        }
    }

    /// What `GET /api/story` answers.
    struct StoryReply: Codable {
        var version: Int
        var ok: Bool
        var errors: [String]
        var story: StoryDescription?
        var build: BuildReport
        var export: ExportStatus

        init(_ session: PreviewSession) {
            self = session.state.withLock { s in
                StoryReply(version: s.version, ok: s.errors.isEmpty && s.good != nil, errors: s.errors, story: s.good?.description,
                           build: s.lastBuild, export: s.export)
            }
        }

        init(version: Int, ok: Bool, errors: [String], story: StoryDescription?, build: BuildReport, export: ExportStatus) {
            self.version = version
            self.ok = ok
            self.errors = errors
            self.story = story
            self.build = build
            self.export = export
        }
    }

    static func page(_ bytes: [UInt8], type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// `data`, or the part a `Range: bytes=...` header asks for (206), as a player seeking asks.
    static func ranged(_ data: Data, request: Request, type: String) -> Response {
        var headers: HTTPFields = [.contentType: type, .acceptRanges: "bytes", .cacheControl: "no-store"]
        let total = data.count
        guard let asked = request.headers[.range] else { return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data))) }
        guard let range = byteRange(asked, total: total) else {
            headers[.contentRange] = "bytes */\(total)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total)"
        return Response(status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data[range])))
    }

    /// One range of `bytes=A-B`, `bytes=A-` or `bytes=-N` within `total` bytes; nil when it
    /// is none of these or lies outside.
    static func byteRange(_ header: String, total: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0, total > 0 else { return nil }
            return max(0, total - suffix)..<total
        }
        guard let first = Int(parts[0]), first >= 0, first < total else { return nil }
        let last = parts[1].isEmpty ? total - 1 : Int(parts[1]).map { min($0, total - 1) }
        guard let last, last >= first else { return nil }
        return first..<(last + 1)
    }
}

/// Refuses requests for another host (a page of elsewhere reaching the server through a name
/// that resolves to loopback), those a browser sends for a page of another site (its
/// `Sec-Fetch-Site`), and, for those that change something, from another origin; answers 400
/// to a request that names its server twice or by a target of its own (`RequestTargets`).
/// Every reply, refusals and errors too, says what it is (Content-Type), carries a content
/// security policy that lets the page load nothing from elsewhere, and may be read by this
/// server's own page only (`Cross-Origin-Resource-Policy: same-origin`).
struct Guard<Context: RequestContext>: RouterMiddleware {
    let settings: PreviewSettings
    let port: Locked<Int>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let refusal = refusal(of: request) {
            response = refusal
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPResponseError {
                response = PreviewServer.problem(error.status, error.status == .notFound ? "not found: \(request.uri.path)" : "\(error)")
            }
        }
        response.headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' blob:; media-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Guard.resourcePolicy] = "same-origin"
        if response.headers[.contentType] == nil { response.headers[.contentType] = "text/plain; charset=utf-8" }
        return response
    }

    static var resourcePolicy: HTTPField.Name { HTTPField.Name("Cross-Origin-Resource-Policy")! }

    /// The answer to a request that is refused, or nil.
    func refusal(of request: Request) -> Response? {
        if let reason = request.headers[HTTPField.Name(RequestTargets.header)!] {
            return PreviewServer.problem(.badRequest, "refused: \(reason)")
        }
        let port = self.port.withLock { $0 }
        var hosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        hosts.append((settings.host.contains(":") ? "[\(settings.host)]" : settings.host) + ":\(port)")
        let host = (request.head.authority ?? "").lowercased()
        guard hosts.contains(host) else {
            return PreviewServer.problem(.forbidden, "refused: Host '\(host)' is not this server's (\(hosts[0]))")
        }
        // A browser says where a request comes from: only this server's own page (or the user,
        // typing the address) may use it; a page of another port of this host is same-site.
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            return PreviewServer.problem(.forbidden, "refused: a request from a page of another origin (Sec-Fetch-Site: \(site))")
        }
        if request.method != .get && request.method != .head {
            guard let origin = request.headers[.origin], hosts.map({ "http://" + $0 }).contains(origin.lowercased()) else {
                return PreviewServer.problem(.forbidden, "refused: a change must come from this server's own page (Origin \(request.headers[.origin] ?? "none"))")
            }
        }
        return nil
    }
}
