import Foundation

/// A part of a manifest: the jobs whose 0-based position modulo `count` is `index`.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// 0-based.
    public var index: Int
    public var count: Int
    /// What the shard was read from, for messages: "--shard 2/3", "SLURM_ARRAY_TASK_ID=1 ...".
    public var source: String

    public init(index: Int, count: Int, source: String) {
        self.index = index
        self.count = count
        self.source = source
    }

    /// "2/3": 1-based, as `--shard K/N` writes it.
    public var description: String { "\(index + 1)/\(count)" }

    /// `--shard K/N` (or `option`'s), 1-based (K from 1 to N).
    public static func parse(_ text: String, option: String = "--shard") throws -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1 else {
            throw ShardError(option: option, problem: .malformed(text))
        }
        guard (1...n).contains(k) else {
            throw ShardError(option: option, problem: .outside(text: text, k: k, n: n))
        }
        return Shard(index: k - 1, count: n, source: "\(option) \(text)")
    }

    /// The shard a cluster engine's array task is: Slurm (`SLURM_ARRAY_TASK_ID` with
    /// `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_STEP` and `SLURM_ARRAY_TASK_COUNT` or
    /// `_MAX`), a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`, with the count from
    /// `count`, `--shard-count`), or AWS Batch (`AWS_BATCH_JOB_ARRAY_INDEX`,
    /// `AWS_BATCH_JOB_ARRAY_SIZE`). Arrays counted from 0 or from 1 both cover every job once.
    /// `option` names the option in errors (`--shard`, `--chunk`).
    public static func automatic(count given: Int? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                                 option: String = "--shard") throws -> Shard {
        func fail(_ problem: ShardError.Problem) -> ShardError { ShardError(option: option, problem: problem) }
        func number(_ key: String) throws -> Int? {
            guard let text = environment[key] else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw fail(.notWhole(key: key, value: text))
            }
            return value
        }
        func shard(_ index: Int, _ count: Int?, read: String) throws -> Shard {
            guard let count = given ?? count else {
                throw fail(.noCount(read: read))
            }
            guard count >= 1, (0..<count).contains(index) else {
                throw fail(.taskOutside(read: read, index: index, count: count))
            }
            return Shard(index: index, count: count, source: read)
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            let low = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            var count = try number("SLURM_ARRAY_TASK_COUNT")
            let high = try number("SLURM_ARRAY_TASK_MAX")
            if count == nil, let high { count = (high - low) / step + 1 }
            let read = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT"]
                .compactMap { key in environment[key].map { "\(key)=\($0)" } }.joined(separator: " ")
            guard (id - low) % step == 0 else {
                throw fail(.offStep(read: read, task: id))
            }
            return try shard((id - low) / step, count, read: read)
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            return try shard(index, nil, read: "JOB_COMPLETION_INDEX=\(index)" + (given.map { " and \(option)-count \($0)" } ?? ""))
        }
        if let index = try number("AWS_BATCH_JOB_ARRAY_INDEX") {
            let size = try number("AWS_BATCH_JOB_ARRAY_SIZE")
            return try shard(index, size, read: "AWS_BATCH_JOB_ARRAY_INDEX=\(index)" + (size.map { " AWS_BATCH_JOB_ARRAY_SIZE=\($0)" } ?? ""))
        }
        throw fail(.noEngine)
    }
}

/// A shard (or chunk) that cannot be told or does not exist.
public struct ShardError: Error, Equatable, CustomStringConvertible {
    /// The option the part was asked with: `--shard`, `--chunk`.
    public var option: String
    public var problem: Problem

    public enum Problem: Equatable, Sendable {
        /// Text that is not K/N.
        case malformed(String)
        /// K outside 1...N.
        case outside(text: String, k: Int, n: Int)
        /// An engine variable that is not a whole number.
        case notWhole(key: String, value: String)
        /// An index was read but no count (Kubernetes without --shard-count).
        case noCount(read: String)
        /// The index read is not one of `count` tasks.
        case taskOutside(read: String, index: Int, count: Int)
        /// A Slurm task id between the array's steps.
        case offStep(read: String, task: Int)
        /// `auto` with no engine's variables set.
        case noEngine
    }

    public var description: String {
        switch problem {
        case let .malformed(text):
            return "\(option) '\(text)': expected K/N with 1 <= K <= N (for example 2/3), or auto"
        case let .outside(text, k, n):
            let hint = k == 0 ? "; K counts from 1. For a 0-based array index use \(option) auto, or \(option) $((INDEX + 1))/\(n)" : ""
            return "\(option) '\(text)': K is \(k), outside 1...\(n)\(hint)"
        case let .notWhole(key, value):
            return "\(option) auto: \(key)=\(value) is not a whole number"
        case let .noCount(read):
            return "\(option) auto: read \(read), but not how many tasks there are; pass \(option)-count N"
        case let .taskOutside(read, index, count):
            return "\(option) auto: read \(read), which makes task \(index) of \(count); expected 0...\(max(0, count - 1))"
        case let .offStep(read, task):
            return "\(option) auto: read \(read); task \(task) is not on the array's step"
        case .noEngine:
            return "\(option) auto: none of SLURM_ARRAY_TASK_ID (Slurm), JOB_COMPLETION_INDEX (Kubernetes) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) is set; run it as an array task, or pass \(option) K/N"
        }
    }
}

extension Shard {
    /// As a chunk of a video of `frames` frames: its frames, contiguous, the chunks' sizes
    /// within one frame of each other (a chunk may have none).
    public func frames(in frames: Int) -> Range<Int> {
        (index * frames / count)..<((index + 1) * frames / count)
    }

    /// What a chunk says of itself in its file's tag: "K/N A-B F" (or "K/N none F").
    func chunkTag(frames: Int) -> String {
        "\(index + 1)/\(count) \(Shard.describe(self.frames(in: frames))) \(frames)"
    }

    /// A range of frames as "A-B", or "none".
    static func describe(_ range: Range<Int>) -> String { range.isEmpty ? "none" : "\(range.lowerBound)-\(range.upperBound - 1)" }
}
