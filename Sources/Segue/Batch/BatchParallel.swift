/// How many jobs of a batch run at once: a number, or `auto`, which `segue batch` takes by
/// default.
///
/// One job alone leaves part of the CPUs idle: its encoder has a fixed two threads (so its
/// bytes do not depend on the machine), x264's lookahead runs on the thread that feeds it,
/// and a 6-second 540x960 card keeps about 1.5 of two cores busy, a 1080x1920 one about 1.4.
/// A second job takes that time. `auto` runs one job for each 1.5 CPUs of `CPUBudget`
/// (rounded up: two on two CPUs, six on eight), no more than the jobs to render, and no more
/// than half of the memory available (`MemoryBudget`) holds at a job's estimated peak.
public enum JobsAtOnce: Sendable, Equatable {
    case fixed(Int)
    case auto

    /// "auto" or a whole number from 1 to 64; nil otherwise.
    public init?(_ text: String) {
        if text == "auto" { self = .auto; return }
        guard let n = Int(text), (1...64).contains(n) else { return nil }
        self = .fixed(n)
    }

    /// Jobs at once for these jobs, on `cpus` CPUs with `memory` bytes available.
    public func resolved(for jobs: [BatchJob], cpus: Int = CPUBudget.forThisProcess, memory: Int? = MemoryBudget.available()) -> Int {
        resolved(rendering: jobs.lazy.filter { !$0.upToDate }.map(\.job), cpus: cpus, memory: memory)
    }

    /// Jobs at once for the jobs that render (a sequence read once: a plan of a hundred
    /// thousand jobs is not copied for it).
    func resolved<Jobs: Sequence<Job>>(rendering: Jobs, cpus: Int, memory: Int?) -> Int {
        switch self {
        case let .fixed(n): return n
        case .auto:
            var rendered = 0, largest: Int?
            for job in rendering {
                rendered += 1
                largest = max(largest ?? 0, JobsAtOnce.estimatedPeak(of: job))
            }
            var count = min(rendered, (2 * max(1, cpus) + 2) / 3)
            if let memory, let largest {
                count = min(count, memory / 2 / largest)
            }
            return max(1, count)
        }
    }

    /// A job's peak memory, roughly: 100 MB and 100 bytes a pixel of its canvas (measured: 161 MB
    /// for a 540x960 card, 299 MB for a 1080x1920 one, 363 MB for a 1080x1920 story of clips).
    static func estimatedPeak(of job: Job) -> Int {
        100 << 20 + 100 * job.preset.canvas.width * job.preset.canvas.height
    }
}

extension BatchRunner {
    /// Gives each job its share of `cpus` to compose on, `parallel` running at once, for
    /// those whose threads were not given (`threadsGiven`: --threads); in place, so that a
    /// plan of many jobs is not copied.
    public static func shareCPUs(_ jobs: inout [BatchJob], parallel: Int, cpus: Int = CPUBudget.forThisProcess, threadsGiven: Bool) {
        guard parallel > 1, !threadsGiven else { return }
        let share = max(1, (cpus + parallel - 1) / parallel)
        for k in jobs.indices { jobs[k].job = jobs[k].job.delivering { $0.threads = min($0.threads, share) } }
    }
}
