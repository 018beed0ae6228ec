import Foundation

/// A value shared between threads, reached only under its lock.
///
/// Like the standard library's `Mutex`, but locked with a pthread mutex (NSLock), which the
/// thread sanitizer understands: on Linux `Mutex` waits on a futex directly, which the
/// sanitizer cannot see, so it reports every access as a race. This is the project's one
/// place of unchecked sendability for shared state: every access goes through `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
