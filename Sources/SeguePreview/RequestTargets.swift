import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// HTTP/1 as Hummingbird serves it, with each request's head looked at as NIO parsed it,
/// before it is turned into Hummingbird's request (which keeps the first `Host` and the
/// path of an absolute-form target, and so cannot tell either apart).
struct CheckedHTTP1: ServerChildChannel {
    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(RequestTargets(), position: .after(decoder))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Marks a request that names its server twice (two `Host` headers: RFC 9112 says 400) or by
/// a target of its own (absolute form, `GET http://elsewhere/...`, which a browser sends only
/// to a proxy), so that `Guard` answers it 400 whatever its route.
final class RequestTargets: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The header the mark is carried in, with the reason.
    static let header = "Segue-Refused-Request"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        head.headers.remove(name: Self.header)
        let hosts = head.headers["Host"].count
        if hosts > 1 {
            head.headers.add(name: Self.header, value: "\(hosts) Host headers; a request names its server once")
        } else if !head.uri.hasPrefix("/") {
            head.headers.add(name: Self.header, value: "the target '\(head.uri.prefix(200))' is not a path on this server")
            head.uri = "/"
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
