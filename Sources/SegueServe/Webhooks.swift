import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1
package import Segue

/// Sends the store's webhook messages, signed as Standard Webhooks 1.0 says (`webhook-id`,
/// `webhook-timestamp`, `webhook-signature`), with async-http-client: each message is tried
/// until an answer of 2xx, waiting `settings.webhookWaits` between tries (then given up),
/// and every try is kept with its render. A message is in the store before its render's end
/// is, so a service killed before sending it sends it after its restart, with the same id
/// (a receiver that saw it already knows it by its id).
final class Webhooks: Sendable {
    let store: JobStore
    let settings: ServeSettings
    let client: HTTPClient

    init(store: JobStore, settings: ServeSettings) {
        self.store = store
        self.settings = settings
        var configuration = HTTPClient.Configuration()
        let timeout = Int64(settings.webhookTimeout * 1000)
        configuration.timeout = .init(connect: .milliseconds(min(5000, timeout)), read: .milliseconds(timeout))
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Messages being sent at most at once.
    static let inFlight = 256

    /// Sends what is due, every quarter second, until the task is cancelled. Each message is
    /// sent on its own: a receiver that hangs until the timeout delays only its own messages.
    func run() async {
        let sending = Locked(Set<String>())
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                for message in (try? store.dueMessages(excluding: sending.withLock { $0 })) ?? []
                where sending.withLock({ $0.count < Webhooks.inFlight && $0.insert(message.messageID).inserted }) {
                    group.addTask {
                        await self.send(message)
                        sending.withLock { _ = $0.remove(message.messageID) }
                    }
                }
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
            group.cancelAll()
        }
    }

    func send(_ message: OutboxMessage) async {
        let timestamp = Int(Date().timeIntervalSince1970)
        var request = HTTPClientRequest(url: message.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "segue/\(SegueVersion.number)")
        request.headers.add(name: "webhook-id", value: message.messageID)
        request.headers.add(name: "webhook-timestamp", value: "\(timestamp)")
        request.headers.add(name: "webhook-signature",
                            value: ServeDocuments.signature(secret: settings.webhookSecret, id: message.messageID, timestamp: timestamp, body: message.body))
        request.body = .bytes(ByteBuffer(string: message.body))
        var status: Int?, failure: String?
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.webhookTimeout * 1000)))
            status = Int(response.status.code)
            _ = try? await response.body.collect(upTo: 64 << 10)
        } catch {
            failure = "\(error)"
        }
        let waits = settings.webhookWaits
        let retry = message.attempts < waits.count ? waits[message.attempts] : nil
        try? store.delivered(message, status: status, error: failure, retryIn: retry)
    }
}
