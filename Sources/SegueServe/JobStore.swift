package import Foundation
import GRDB
package import Segue

/// One render as the store keeps it.
struct RenderRecord: Sendable {
    var id: String
    var token: String
    var idempotencyKey: String?
    var bodyDigest: String
    /// The request as received (JSON or YAML text), read again when the render runs.
    var request: String
    var format: String
    var fingerprint: String?
    var reused: String?
    var webhook: String?
    var metadata: String?
    var status: String
    var framesDone = 0
    var framesTotal = 0
    var error: String?
    var outputBytes: Int?
    var attempts = 0
    /// Pixels x frames the render composes, counted against its token's budget while it waits.
    var pixelFrames = 0
    /// The executor's own name of the running render (a Slurm job id), or nil.
    var executorJob: String?
    var created: Double
    var updated: Double
    var started: Double?
    var finished: Double?

    static let ended: Set<String> = ["done", "failed", "cancelled"]
    var hasEnded: Bool { RenderRecord.ended.contains(status) }

    init(row: Row) {
        id = row["id"]; token = row["token"]; idempotencyKey = row["idem_key"]; bodyDigest = row["body_digest"]; request = row["request"]
        format = row["format"]; fingerprint = row["fingerprint"]; reused = row["reused"]; webhook = row["webhook"]; metadata = row["metadata"]
        status = row["status"]; framesDone = row["frames_done"]; framesTotal = row["frames_total"]; error = row["error"]
        outputBytes = row["output_bytes"]; attempts = row["attempts"]; pixelFrames = row["pixel_frames"]; executorJob = row["executor_job"]
        created = row["created"]; updated = row["updated"]
        started = row["started"]; finished = row["finished"]
    }

    init(id: String, token: String, idempotencyKey: String?, bodyDigest: String, request: String, format: String, webhook: String?, metadata: String?, status: String, now: Double) {
        self.id = id; self.token = token; self.idempotencyKey = idempotencyKey; self.bodyDigest = bodyDigest; self.request = request
        self.format = format; self.webhook = webhook; self.metadata = metadata; self.status = status; created = now; updated = now
    }
}

/// A webhook delivery tried, with its answer.
struct DeliveryRecord: Sendable {
    var event: String, messageID: String, attempt: Int, at: Double, status: Int?, error: String?
}

/// A webhook message waiting to be delivered.
struct OutboxMessage: Sendable {
    var messageID: String, render: String, event: String, body: String, attempts: Int, url: String
}

/// The service's jobs in SQLite (GRDB, WAL): every render, its progress and end, and every
/// webhook message and delivery. Each change is in one transaction (admissions asked at once
/// share one), so a process killed at any moment leaves the store as it was before the change
/// or after it, and a submission is answered only once its render is stored.
final class JobStore: Sendable {
    let pool: DatabasePool
    let outputs: String
    /// Files sent with renders, in a folder for each (Uploads.swift), removed at its end.
    let uploads: String

    /// A connection of its own for checkpoints (`checkpoint()`): the writes never copy the log
    /// into the database themselves, nor wait for its fsyncs.
    private let checkpointer: DatabaseQueue

    init(folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/outputs", withIntermediateDirectories: true)
        outputs = folder + "/outputs"
        uploads = folder + "/uploads"
        var configuration = Configuration()
        // A write held up by the checkpoint's restart tries again every tenth of a millisecond
        // (SQLite's own waits grow to 100 ms), for ten seconds at most.
        configuration.busyMode = .callback { tries in
            usleep(100)
            return tries < 100_000
        }
        configuration.prepareDatabase { db in
            // Checkpoints are `checkpoint()`'s; a log started again is cut back to 64 MB.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = \(JobStore.logFrames * 4096)")
        }
        pool = try DatabasePool(path: folder + "/jobs.sqlite", configuration: configuration)
        checkpointer = try DatabaseQueue(path: folder + "/jobs.sqlite", configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1") { db in
            try db.execute(sql: """
                CREATE TABLE renders (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, token TEXT NOT NULL,
                  idem_key TEXT, body_digest TEXT NOT NULL, request TEXT NOT NULL, format TEXT NOT NULL, fingerprint TEXT, reused TEXT,
                  webhook TEXT, metadata TEXT, status TEXT NOT NULL, frames_done INTEGER NOT NULL DEFAULT 0,
                  frames_total INTEGER NOT NULL DEFAULT 0, error TEXT, output_bytes INTEGER, attempts INTEGER NOT NULL DEFAULT 0,
                  created REAL NOT NULL, updated REAL NOT NULL, started REAL, finished REAL);
                CREATE UNIQUE INDEX renders_key ON renders(token, idem_key) WHERE idem_key IS NOT NULL;
                CREATE INDEX renders_status ON renders(status, seq);
                CREATE INDEX renders_fingerprint ON renders(fingerprint, format) WHERE status = 'done';
                CREATE TABLE outbox (message_id TEXT PRIMARY KEY, render TEXT NOT NULL, event TEXT NOT NULL, url TEXT NOT NULL,
                  body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at REAL NOT NULL, state TEXT NOT NULL);
                CREATE INDEX outbox_due ON outbox(state, next_at);
                CREATE TABLE deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, render TEXT NOT NULL, event TEXT NOT NULL,
                  message_id TEXT NOT NULL, attempt INTEGER NOT NULL, at REAL NOT NULL, status INTEGER, error TEXT);
                CREATE INDEX deliveries_render ON deliveries(render, seq);
                """)
        }
        migrator.registerMigration("2") { db in
            // A submission counts its token's waiting renders: by index, not by every render waiting.
            try db.execute(sql: "CREATE INDEX renders_token ON renders(token, status)")
        }
        migrator.registerMigration("3") { db in
            try db.execute(sql: """
                ALTER TABLE renders ADD COLUMN pixel_frames INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE renders ADD COLUMN executor_job TEXT;
                """)
        }
        migrator.registerMigration("4") { db in
            // What each token has waiting and running, kept as renders are admitted and end:
            // a submission reads one row, however many renders wait.
            try db.execute(sql: """
                CREATE TABLE tokens (token TEXT PRIMARY KEY, waiting INTEGER NOT NULL, pixel_frames INTEGER NOT NULL);
                INSERT INTO tokens SELECT token, count(*), coalesce(sum(pixel_frames), 0) FROM renders
                  WHERE status IN ('queued', 'preparing', 'rendering', 'encoding') GROUP BY token;
                """)
        }
        migrator.registerMigration("5") { db in
            // The tokens table keeps what the index was for; each admission and change of
            // state has one index fewer to change.
            try db.execute(sql: "DROP INDEX renders_token")
        }
        try migrator.migrate(pool)
    }

    static var now: Double { Date().timeIntervalSince1970 }

    /// The log's frames past which a checkpoint waits for the writes to pause and starts the
    /// log again (SQLite's own checkpoints come every 1,000): about 64 MB of log at most under
    /// writes that never pause, two seconds of them.
    static let logFrames = 16_000

    /// Copies the write-ahead log into the database, beside the writes (a passive checkpoint
    /// waits for none); when the log has grown past `logFrames`, waits for the writes to
    /// pause and starts it again. The service calls it every quarter second.
    func checkpoint() throws {
        try checkpointer.writeWithoutTransaction { db in
            if try db.checkpoint(.passive).walFrameCount > JobStore.logFrames { _ = try db.checkpoint(.restart) }
        }
    }

    /// The renders a killed service left running, queued again (to run from the start, or to
    /// find their output already made by its fingerprint); how many. Those an executor of
    /// `keeping` runs on its own (a cluster's jobs, running on without the service) are kept.
    func requeueInterrupted(keeping: Bool = false) throws -> Int {
        try pool.write { db in
            try db.execute(sql: """
                UPDATE renders SET status = 'queued', frames_done = 0, executor_job = NULL, updated = ?
                WHERE status IN ('preparing', 'rendering', 'encoding') AND (? = 0 OR executor_job IS NULL)
                """, arguments: [JobStore.now, keeping])
            return db.changesCount
        }
    }

    enum Admission: Sendable { case created(RenderRecord), replayed(RenderRecord), keyReused, overLimit(Int), overBudget(Int) }

    /// An admission asked for and not yet written, with whom to tell.
    private struct Asked: Sendable {
        var record: RenderRecord, limit: Int, budget: Int
        var reusable: @Sendable (RenderRecord) -> Bool
        var answer: @Sendable (Result<Admission, any Error>) -> Void
    }

    /// The admissions waiting for the store's writer, whether its thread has started, how
    /// many were asked for and how many transactions of them it has committed.
    private let asked = Locked<(waiting: [Asked], started: Bool, total: Int, committed: Int)>(([], false, 0, 0))
    private let askedMore = DispatchSemaphore(value: 0)

    /// Admissions asked for that the writer has not taken yet.
    var admissionsWaiting: Int { asked.withLock { $0.waiting.count } }
    /// Admissions asked for so far.
    var admissionsAsked: Int { asked.withLock { $0.total } }
    /// Transactions of admissions committed so far.
    var admissionTransactions: Int { asked.withLock { $0.committed } }

    /// Adds `record` unless its token already used its idempotency key (then that render, or
    /// `keyReused` when the body differs), or the token has `limit` renders waiting and running,
    /// or their pixels x frames and the record's are over `budget`. A render done of the same
    /// fingerprint and format, when `reusable` says its output is there, makes the record done
    /// at once, its output that render's.
    ///
    /// Admissions are written by one thread of the store's, all those asked for meanwhile in
    /// one transaction (a group commit): under a burst of submissions, the log's pages and the
    /// transaction's locks are written and taken once for many. Each is answered once its
    /// transaction is committed; in the same order as asked, so that a later one sees an
    /// earlier one's key and counts.
    func admit(_ record: RenderRecord, limit: Int, budget: Int = .max, reusable: @escaping @Sendable (RenderRecord) -> Bool = { _ in false }) async throws -> Admission {
        try await withCheckedThrowingContinuation { continuation in
            let start = asked.withLock { asked -> Bool in
                asked.waiting.append(Asked(record: record, limit: limit, budget: budget, reusable: reusable, answer: { continuation.resume(with: $0) }))
                asked.total += 1
                defer { asked.started = true }
                return !asked.started
            }
            if start { Workers.start { [self] in writeAdmissions() } }
            askedMore.signal()
        }
    }

    /// The writer's loop: everything asked for, in one transaction; when it fails, each in a
    /// transaction of its own, so that only the one at fault is answered with the error.
    private func writeAdmissions() {
        while true {
            askedMore.wait()
            let batch = asked.withLock { asked -> [Asked] in
                defer { asked.waiting.removeAll(keepingCapacity: true) }
                return asked.waiting
            }
            guard !batch.isEmpty else { continue }
            if batch.count > 1, let admissions = try? pool.write({ db in try batch.map { try JobStore.admit(db, $0) } }) {
                asked.withLock { $0.committed += 1 }
                for (one, admission) in zip(batch, admissions) { one.answer(.success(admission)) }
                continue
            }
            for one in batch {
                let result = Result { try pool.write { db in try JobStore.admit(db, one) } }
                if case .success = result { asked.withLock { $0.committed += 1 } }
                one.answer(result)
            }
        }
    }

    private static func admit(_ db: Database, _ asked: Asked) throws -> Admission {
        var record = asked.record
        if let key = record.idempotencyKey,
           let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM renders WHERE token = ? AND idem_key = ?"), arguments: [record.token, key]) {
            let existing = RenderRecord(row: row)
            return existing.bodyDigest == record.bodyDigest ? .replayed(existing) : .keyReused
        }
        if let fingerprint = record.fingerprint,
           let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM renders WHERE fingerprint = ? AND format = ? AND status = 'done' ORDER BY seq LIMIT 1"),
                                      arguments: [fingerprint, record.format]) {
            let made = RenderRecord(row: row)
            if asked.reusable(made) {
                record.status = "done"
                record.reused = made.reused ?? made.id
                record.outputBytes = made.outputBytes
                record.framesDone = record.framesTotal
                record.finished = record.created
            }
        }
        if record.status == "queued" {
            let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT waiting, pixel_frames FROM tokens WHERE token = ?"), arguments: [record.token])
            let waiting: Int = row?["waiting"] ?? 0, work: Int = row?["pixel_frames"] ?? 0
            if waiting >= asked.limit { return .overLimit(waiting) }
            if work > asked.budget - record.pixelFrames { return .overBudget(work) }
            try db.cachedStatement(sql: """
                INSERT INTO tokens (token, waiting, pixel_frames) VALUES (?, 1, ?)
                ON CONFLICT(token) DO UPDATE SET waiting = waiting + 1, pixel_frames = pixel_frames + excluded.pixel_frames
                """).execute(arguments: [record.token, record.pixelFrames])
        }
        // Statements of the submission's path are compiled once, kept by the connection.
        try db.cachedStatement(sql: """
            INSERT INTO renders (id, token, idem_key, body_digest, request, format, fingerprint, reused, webhook, metadata, status,
              frames_total, pixel_frames, output_bytes, created, updated, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [record.id, record.token, record.idempotencyKey, record.bodyDigest, record.request, record.format, record.fingerprint,
                             record.reused, record.webhook, record.metadata, record.status, record.framesTotal, record.pixelFrames, record.outputBytes,
                             record.created, record.updated, record.finished])
        if record.status == "done" { try JobStore.addMessage(db, for: record, event: "render.done") }
        return .created(record)
    }

    func render(_ id: String) throws -> RenderRecord? {
        try pool.read { db in try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM renders WHERE id = ?"), arguments: [id]).map(RenderRecord.init) }
    }

    /// A page of renders, newest first: `after` is the last seq of the page before.
    func list(status: String?, limit: Int, after: Int?) throws -> (renders: [RenderRecord], next: Int?) {
        try pool.read { db in
            var sql = "SELECT * FROM renders WHERE 1", arguments: StatementArguments = []
            if let status { sql += " AND status = ?"; arguments += [status] }
            if let after { sql += " AND seq < ?"; arguments += [after] }
            sql += " ORDER BY seq DESC LIMIT ?"
            arguments += [limit + 1]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let page = rows.prefix(limit)
            return (page.map(RenderRecord.init), rows.count > limit ? page.last.map { $0["seq"] as Int } : nil)
        }
    }

    func counts() throws -> (queued: Int, running: Int) {
        try pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM renders WHERE status = 'queued'") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM renders WHERE status IN ('preparing', 'rendering', 'encoding')") ?? 0)
        }
    }

    /// The oldest queued render, now preparing (its attempt counted), or nil.
    func claim() throws -> RenderRecord? {
        try pool.write { db in
            let now = JobStore.now
            return try Row.fetchOne(db.cachedStatement(sql: """
                UPDATE renders SET status = 'preparing', attempts = attempts + 1, started = ?, updated = ?
                WHERE seq = (SELECT seq FROM renders WHERE status = 'queued' ORDER BY seq LIMIT 1) RETURNING *
                """), arguments: [now, now]).map(RenderRecord.init)
        }
    }

    /// A running render's progress (never over an end); false when it has ended already
    /// (cancelled while it was being claimed, say), and should stop.
    @discardableResult
    func progress(_ id: String, status: String, done: Int, total: Int) throws -> Bool {
        try pool.write { db in
            try db.cachedStatement(sql: "UPDATE renders SET status = ?, frames_done = ?, frames_total = ?, updated = ? WHERE id = ? AND status IN ('preparing', 'rendering', 'encoding')").execute(
                           arguments: [status, done, total, JobStore.now, id])
            return db.changesCount > 0
        }
    }

    /// Records the executor's own name of a claimed render (a Slurm job id).
    func assign(_ id: String, executorJob: String) throws {
        try pool.write { db in
            try db.cachedStatement(sql: "UPDATE renders SET executor_job = ?, updated = ? WHERE id = ?").execute(arguments: [executorJob, JobStore.now, id])
        }
    }

    /// The renders running under an executor's own names.
    func assigned() throws -> [RenderRecord] {
        try pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM renders WHERE executor_job IS NOT NULL AND status IN ('preparing', 'rendering', 'encoding') ORDER BY seq"))
                .map(RenderRecord.init)
        }
    }

    /// Ends a render (`done`, `failed` or `cancelled`) and queues its webhook, in one
    /// transaction; false when it had ended already.
    @discardableResult
    func end(_ id: String, status: String, error: String? = nil, outputBytes: Int? = nil, fingerprint: String? = nil) throws -> Bool {
        let ended = try pool.write { db in
            let now = JobStore.now
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                UPDATE renders SET status = ?, error = ?, output_bytes = ?, fingerprint = coalesce(?, fingerprint), updated = ?, finished = ?,
                  frames_done = CASE WHEN ? = 'done' THEN frames_total ELSE frames_done END
                WHERE id = ? AND status NOT IN ('done', 'failed', 'cancelled') RETURNING *
                """), arguments: [status, error, outputBytes, fingerprint, now, now, status, id]) else { return false }
            let record = RenderRecord(row: row)
            try db.cachedStatement(sql: "UPDATE tokens SET waiting = waiting - 1, pixel_frames = pixel_frames - ? WHERE token = ?").execute(arguments: [record.pixelFrames, record.token])
            try JobStore.addMessage(db, for: record, event: "render.\(status)")
            return true
        }
        // The files sent with it are not read again.
        if ended { try? FileManager.default.removeItem(atPath: uploadFolder(id)) }
        return ended
    }

    /// Where the files sent with render `id` are kept while it waits and runs.
    func uploadFolder(_ id: String) -> String { "\(uploads)/\(id)" }

    /// The files sent with render `id`: their folder, or nil when none were sent.
    func sentFiles(_ id: String) -> String? {
        FileManager.default.fileExists(atPath: uploadFolder(id)) ? uploadFolder(id) : nil
    }

    /// The webhook message of `event`, when the render has a webhook; the body is the render's
    /// status document, as `GET` gives it, kept as it was at the event.
    private static func addMessage(_ db: Database, for record: RenderRecord, event: String) throws {
        guard let url = record.webhook else { return }
        let body = try ServeDocuments.webhookBody(event: event, record: record)
        try db.cachedStatement(sql: "INSERT INTO outbox (message_id, render, event, url, body, next_at, state) VALUES (?, ?, ?, ?, ?, ?, 'pending')").execute(
                       arguments: ["msg_" + ServeDocuments.randomHex(12), record.id, event, url, body, JobStore.now])
    }

    /// Up to 64 messages due to be sent now, but those in `excluding` (being sent).
    func dueMessages(excluding sending: Set<String> = []) throws -> [OutboxMessage] {
        try pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM outbox WHERE state = 'pending' AND next_at <= ? ORDER BY next_at LIMIT ?"),
                             arguments: [JobStore.now, 64 + sending.count]).filter { !sending.contains($0["message_id"]) }.prefix(64).map {
                OutboxMessage(messageID: $0["message_id"], render: $0["render"], event: $0["event"], body: $0["body"], attempts: $0["attempts"], url: $0["url"])
            }
        }
    }

    /// A delivery's answer: the message delivered, waiting `retryIn` seconds, or given up (nil).
    func delivered(_ message: OutboxMessage, status: Int?, error: String?, retryIn: Double?) throws {
        try pool.write { db in
            let now = JobStore.now
            try db.cachedStatement(sql: "INSERT INTO deliveries (render, event, message_id, attempt, at, status, error) VALUES (?, ?, ?, ?, ?, ?, ?)").execute(
                           arguments: [message.render, message.event, message.messageID, message.attempts + 1, now, status, error])
            let success = status.map { (200..<300).contains($0) } ?? false
            try db.cachedStatement(sql: "UPDATE outbox SET attempts = attempts + 1, state = ?, next_at = ? WHERE message_id = ?").execute(
                           arguments: [success ? "delivered" : retryIn == nil ? "failed" : "pending", now + (retryIn ?? 0), message.messageID])
        }
    }

    func deliveries(of id: String) throws -> [DeliveryRecord] {
        try pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM deliveries WHERE render = ? ORDER BY seq"), arguments: [id]).map {
                DeliveryRecord(event: $0["event"], messageID: $0["message_id"], attempt: $0["attempt"], at: $0["at"], status: $0["status"], error: $0["error"])
            }
        }
    }
}
