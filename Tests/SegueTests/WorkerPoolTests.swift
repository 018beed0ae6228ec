import Foundation
import Testing
@testable import Segue

@Suite("The workers a program's requests run on")
struct WorkerPoolTests {
    @Test("a hundred pieces of work queued at once run on the pool's three threads, each piece once")
    func bounded() {
        let pool = WorkerPool(size: 3)
        let threads = Locked<Set<UInt>>([]), done = Locked(0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<100 {
            pool.run {
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                done.withLock { $0 += 1 }
                finished.signal()
            }
        }
        for _ in 0..<100 { finished.wait() }
        #expect(done.withLock { $0 } == 100)
        #expect(pool.started == 3 && threads.withLock { $0.count } <= 3, "\(pool.started) started, \(threads.withLock { $0.count }) seen")
    }

    @Test("Workers.run answers fifty awaiting tasks from its pool, starting no thread of its own for each")
    func requests() async throws {
        let threads = Locked<Set<UInt>>([])
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<50 {
                group.addTask { try await Workers.run { threads.withLock { _ = $0.insert(UInt(pthread_self())) }; return n * 2 } }
            }
            return try await group.reduce(0, +)
        }
        #expect(results == (0..<50).reduce(0) { $0 + $1 * 2 })
        #expect(threads.withLock { $0.count } <= Workers.pool.size && Workers.pool.started <= Workers.pool.size)
    }
}
