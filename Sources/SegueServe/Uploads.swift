import Crypto
package import Foundation
package import OpenAPIRuntime
package import Segue

/// Files sent with a render (`multipart/form-data`: a `request` part and `files` parts), kept
/// in the store's `uploads/ID/` under the names they were sent with until the render ends.
/// A story finds each by that name before the inputs folders.
enum Uploads {
    typealias Form = MultipartBody<Operations.CreateRender.Input.Body.MultipartFormPayload>

    /// Files one request may send.
    static let maxFiles = 1000

    /// Reads the parts as they arrive, writing each file into `folder`: the request's text, and
    /// a digest of the files' names and bytes (the same request with other files is another).
    /// More than `limit` bytes of files, or a request part over `requestLimit`, is 413; a
    /// filename with a folder in it, sent twice, or missing, is 422.
    static func receive(_ form: Form, into folder: String, limit: Int, requestLimit: Int) async throws -> (request: String, digest: String) {
        var digest = SHA256()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var request: String?
        var names: Set<String> = []
        var total = 0
        for try await part in form {
            switch part {
            case let .request(part):
                guard request == nil else { throw ServeProblem.invalid("request: sent twice; expected one request part", errors: [.init(message: "sent twice", key: "request")]) }
                do { request = try await String(collecting: part.payload.body, upTo: requestLimit) } catch {
                    throw ServeProblem(status: 413, title: "Body too large", detail: "the request part is over \(requestLimit) bytes")
                }
            case let .files(part):
                let name = try checked(part.filename)
                guard names.insert(name).inserted else { throw ServeProblem.invalid("files: '\(name)' sent twice", errors: [.init(message: "sent twice", key: "files")]) }
                guard names.count <= maxFiles else { throw ServeProblem.invalid("files: more than \(maxFiles) files", errors: [.init(message: "too many files", key: "files")]) }
                let path = folder + "/" + name
                guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                    throw ServeProblem(status: 503, title: "Not stored", detail: "files: '\(name)' could not be written to the store")
                }
                defer { try? handle.close() }
                digest.update(data: Data((name + "\0").utf8))
                for try await chunk in part.payload.body {
                    total += chunk.count
                    guard total <= limit else {
                        throw ServeProblem(status: 413, title: "Body too large", detail: "the files sent are over \(limit) bytes (--max-upload)")
                    }
                    digest.update(data: chunk)
                    try handle.write(contentsOf: chunk)
                }
            case let .undocumented(part):
                let name = part.name ?? "(no name)"
                throw ServeProblem.invalid("\(name): not a part of a render request; expected request and files",
                                           errors: [.init(message: "unknown part", key: name)])
            }
        }
        guard let request else { throw ServeProblem.invalid("request: missing; expected a part named request with the render request", errors: [.init(message: "missing", key: "request")]) }
        return (request, ServeDocuments.hex(digest.finalize()))
    }

    /// A part's filename as a story may name it: one name, no folder, not hidden.
    static func checked(_ filename: String?) throws -> String {
        guard let name = filename, !name.isEmpty, name.utf8.count <= 255, !name.contains("/"), !name.hasPrefix("."), !name.contains("\0") else {
            throw ServeProblem.invalid("files: '\(filename ?? "")' is not a file's name; expected a name with no folder (a.jpg), not starting with '.'",
                                       errors: [.init(message: "expected a file name", key: "files")])
        }
        return name
    }

    /// The files kept in `folder`, by the names a story gives them.
    static func sent(in folder: String) -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Dictionary(uniqueKeysWithValues: names.map { ($0, folder + "/" + $0) })
    }
}
