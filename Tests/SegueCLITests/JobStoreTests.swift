import Foundation
import Segue
@testable import SegueServe
import SegueTestSupport
import Testing

/// The service's store as its submissions use it: admissions written together (group commit).
@Suite("segue serve's store")
struct JobStoreTests {
    static func record(_ id: String, token: String = "local", key: String? = nil, body: String = "a") -> RenderRecord {
        RenderRecord(id: id, token: token, idempotencyKey: key, bodyDigest: body, request: "{}", format: "mp4", webhook: nil, metadata: nil,
                     status: "queued", now: 0)
    }

    /// Admissions asked for while the store's writer is held (by a write of the test's own,
    /// after the first admission was taken), then answered: what each was answered, and how
    /// many transactions the store committed for them.
    static func admitHeld(_ store: JobStore, _ records: [RenderRecord], limit: Int) async throws -> (answers: [String], transactions: Int) {
        let gate = DispatchSemaphore(value: 0), holding = DispatchSemaphore(value: 0)
        Workers.start {
            try? store.pool.writeWithoutTransaction { _ in
                holding.signal()
                gate.wait()
            }
        }
        holding.wait()
        let before = store.admissionTransactions, asked = store.admissionsAsked
        return try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, record) in records.enumerated() {
                group.addTask {
                    do {
                        switch try await store.admit(record, limit: limit) {
                        case let .created(made): return (index, "created \(made.id)")
                        case let .replayed(made): return (index, "replayed \(made.id)")
                        case .keyReused: return (index, "key reused")
                        case let .overLimit(count): return (index, "over limit \(count)")
                        case let .overBudget(work): return (index, "over budget \(work)")
                        }
                    } catch {
                        return (index, "failed")
                    }
                }
                // In the order given: each asked for before the next.
                while store.admissionsAsked < asked + index + 1 { await Task.yield() }
                // The first is taken by the writer, which then waits for the test's write.
                while index == 0, store.admissionsWaiting > 0 { await Task.yield() }
            }
            while store.admissionsWaiting < records.count - 1 { await Task.yield() }
            gate.signal()
            var answers = [String](repeating: "", count: records.count)
            for try await (index, answer) in group { answers[index] = answer }
            return (answers, store.admissionTransactions - before)
        }
    }

    @Test("admissions asked at once are one transaction, in the order asked: a key's second use is its replay, a token's limit counts those before it")
    func groupCommit() async throws {
        let store = try JobStore(folder: temporaryFolder().path)
        let records = [JobStoreTests.record("r_first"), JobStoreTests.record("r_1", key: "k"), JobStoreTests.record("r_2", key: "k"),
                       JobStoreTests.record("r_3", key: "k", body: "b"), JobStoreTests.record("r_4"), JobStoreTests.record("r_5"),
                       JobStoreTests.record("r_6", token: "other")]
        let (answers, transactions) = try await JobStoreTests.admitHeld(store, records, limit: 3)
        #expect(answers == ["created r_first", "created r_1", "replayed r_1", "key reused", "created r_4", "over limit 3", "created r_6"])
        // The first alone (taken before the writer was held), the six asked meanwhile together.
        #expect(transactions == 2)
        #expect(try store.counts().queued == 4)
    }

    @Test("an admission that fails in a group fails alone: the others are written, each in a transaction of its own")
    func groupFailure() async throws {
        let store = try JobStore(folder: temporaryFolder().path)
        // The fourth has the second's id, which the store keeps unique.
        let records = ["r_first", "r_1", "r_2", "r_1", "r_3"].map { JobStoreTests.record($0) }
        let (answers, transactions) = try await JobStoreTests.admitHeld(store, records, limit: 100)
        #expect(answers == ["created r_first", "created r_1", "created r_2", "failed", "created r_3"])
        #expect(transactions == 4)
        #expect(try store.counts().queued == 4)
    }
}
