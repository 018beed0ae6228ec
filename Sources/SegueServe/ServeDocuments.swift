import Crypto
package import Foundation
package import OpenAPIRuntime
package import Segue

/// The service's records as its OpenAPI document's types, and the bytes it signs.
enum ServeDocuments {
    static func randomHex(_ bytes: Int) -> String {
        // Eight bytes from each draw: one read of the system's randomness for eight, not one each.
        var generator = SystemRandomNumberGenerator()
        var random: [UInt8] = []
        while random.count < bytes { withUnsafeBytes(of: generator.next() as UInt64) { random += $0 } }
        return hex(random.prefix(bytes))
    }

    static func digest(_ text: String) -> String { hex(SHA256.hash(data: Data(text.utf8))) }

    /// Bytes as lowercase hexadecimal.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func outputPath(_ store: JobStore, _ record: RenderRecord) -> String {
        "\(store.outputs)/\(record.reused ?? record.id).\(record.format)"
    }

    static func render(_ record: RenderRecord, deliveries: [DeliveryRecord] = []) -> Components.Schemas.Render {
        let link = "/v1/renders/\(record.id)"
        var eta: Double?
        if record.status == "rendering", let started = record.started, record.framesDone > 0, record.framesTotal > record.framesDone {
            eta = (record.updated - started) / Double(record.framesDone) * Double(record.framesTotal - record.framesDone)
        }
        let error = record.error.flatMap { try? JSONDecoder().decode(Components.Schemas.RenderError.self, from: Data($0.utf8)) }
        let metadata = record.metadata.flatMap { try? JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data($0.utf8)) }
        return .init(id: record.id, status: Components.Schemas.Status(rawValue: record.status) ?? .failed,
                     format: Components.Schemas.Format(rawValue: record.format) ?? .mp4,
                     created: Date(timeIntervalSince1970: record.created), updated: Date(timeIntervalSince1970: record.updated),
                     finished: record.finished.map { Date(timeIntervalSince1970: $0) },
                     progress: .init(framesDone: record.framesDone, framesTotal: record.framesTotal, etaSeconds: eta.map { max(0, $0) }),
                     attempts: record.attempts, fingerprint: record.fingerprint, reused: record.reused, error: error,
                     output: record.status == "done" ? .init(url: link + "/output", format: Components.Schemas.Format(rawValue: record.format) ?? .mp4, bytes: record.outputBytes ?? 0) : nil,
                     metadata: metadata.map { .init(additionalProperties: $0) }, webhook: record.webhook,
                     deliveries: deliveries.isEmpty ? nil : deliveries.map {
                         .init(event: $0.event, messageId: $0.messageID, attempt: $0.attempt, at: Date(timeIntervalSince1970: $0.at), status: $0.status, error: $0.error)
                     },
                     links: .init(_self: link, events: link + "/events", output: record.status == "done" ? link + "/output" : nil))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func json(_ record: RenderRecord) throws -> String {
        String(decoding: try encoder.encode(render(record)), as: UTF8.self)
    }

    /// A webhook's body: `{"type": event, "timestamp": ..., "data": the render}`, as Standard
    /// Webhooks suggests.
    static func webhookBody(event: String, record: RenderRecord) throws -> String {
        let stamp = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: record.updated))
        return "{\"data\":\(try json(record)),\"timestamp\":\"\(stamp)\",\"type\":\"\(event)\"}"
    }

    /// Standard Webhooks 1.0's signature of `body`: `v1,` and the base64 of HMAC-SHA256 over
    /// `id.timestamp.body`, keyed by the secret's bytes (the base64 after `whsec_`).
    static func signature(secret: String, id: String, timestamp: Int, body: String) -> String {
        let key = SymmetricKey(data: Data(base64Encoded: String(secret.dropFirst(secret.hasPrefix("whsec_") ? 6 : 0))) ?? Data(secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).\(body)".utf8), using: key)
        return "v1," + Data(mac).base64EncodedString()
    }
}
