import CSegueAV
import Foundation

/// What Segue is and what it runs with: its version, the commit it was built from, and the
/// versions of the codec libraries it encodes with.
public enum SegueVersion {
    /// Segue's own version.
    public static let number = "0.4.0"
    /// The git commit the build was made from ("-dirty" when its sources differed from it);
    /// nil for a build outside a checkout.
    public static let commit: String? = embeddedCommit

    /// `segue 0.4.0 (commit 1a2b3c4d5e6f)`, or without the commit.
    public static var headline: String { "segue \(number)" + (commit.map { " (commit \($0))" } ?? "") }

    /// The FFmpeg libraries linked, and libx264 and libx265, one "name version" each.
    public static var libraries: [String] {
        var buffer = [CChar](repeating: 0, count: 2048)
        segue_library_versions(&buffer, buffer.count)
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.split(separator: "\n").map(String.init)
    }
}

/// The CPUs a job may use: what the process's affinity mask allows (taskset, a Slurm task's
/// binding), capped by a cgroup v2 CPU quota (a container's or a Kubernetes pod's `cpu.max`)
/// and by `SLURM_CPUS_PER_TASK`; never the machine's whole core count when less was given.
public enum CPUBudget {
    /// `available()` for this process, read once (its cgroup files and environment): a job's
    /// default, asked for each of a batch's rows.
    public static let forThisProcess = available()

    /// The number of CPUs to use by default, at least 1.
    public static func available(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        var count = Int(segue_affinity_cpus())
        if count < 1 { count = ProcessInfo.processInfo.activeProcessorCount }
        if let quota = cgroupQuota() { count = min(count, quota) }
        if let slurm = environment["SLURM_CPUS_PER_TASK"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), slurm >= 1 {
            count = min(count, slurm)
        }
        return max(1, count)
    }

    /// The smallest CPU quota of this process's cgroup and its ancestors, rounded up to whole
    /// CPUs: cgroup v2's `cpu.max`, or v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`.
    static func cgroupQuota(proc: String = "/proc/self/cgroup", root: String = "/sys/fs/cgroup") -> Int? {
        func read(_ file: String) -> String? { try? String(contentsOfFile: file, encoding: .utf8) }
        return smallestInCgroups(proc: proc, root: root, controller: "cpu", v2: { read($0 + "/cpu.max").flatMap(quota(cpuMax:)) }, v1: { folder in
            guard let q = read(folder + "/cpu.cfs_quota_us"), let p = read(folder + "/cpu.cfs_period_us") else { return nil }
            return quota(cpuMax: q.trimmingCharacters(in: .whitespacesAndNewlines) + " " + p)
        })
    }

    /// The smallest of a limit over this process's cgroups and their ancestors, read by `v2`
    /// in the unified hierarchy and by `v1` in a v1 hierarchy that has `controller`.
    static func smallestInCgroups(proc: String, root: String, controller: String, v2: (String) -> Int?, v1: (String) -> Int?) -> Int? {
        guard let text = try? String(contentsOfFile: proc, encoding: .utf8) else { return nil }
        var best: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let unified = fields[0] == "0" && fields[1].isEmpty
            guard unified || fields[1].split(separator: ",").contains(Substring(controller)) else { continue }
            let base = unified ? root : root + "/" + fields[1]
            var path = String(fields[2])
            while true {
                let folder = base + (path == "/" ? "" : path)
                if let value = unified ? v2(folder) : v1(folder) { best = min(best ?? value, value) }
                guard path != "/", !path.isEmpty else { break }
                path = (path as NSString).deletingLastPathComponent
            }
        }
        return best
    }

    /// Whole CPUs in a cgroup v2 `cpu.max` ("QUOTA PERIOD" in microseconds, or "max PERIOD"
    /// for no limit; v1's quota and period read the same way, -1 for no limit), rounded up;
    /// nil for no limit or unreadable text.
    static func quota(cpuMax text: String) -> Int? {
        let parts = text.split(whereSeparator: \.isWhitespace)
        // "max" (v2) and -1 (v1) mean no limit.
        guard parts.count >= 1, parts[0] != "max", let quota = Double(parts[0]), quota > 0 else { return nil }
        let period = parts.count >= 2 ? Double(parts[1]) ?? 100_000 : 100_000
        guard period > 0 else { return nil }
        return max(1, Int((quota / period).rounded(.up)))
    }
}

/// The memory a batch may take: what the system has available (`MemAvailable`), capped by a
/// cgroup's memory limit (a container's or a Kubernetes pod's `memory.max`, v1's
/// `memory.limit_in_bytes`).
public enum MemoryBudget {
    /// Bytes, or nil when the system does not say.
    public static func available(meminfo: String = "/proc/meminfo", proc: String = "/proc/self/cgroup", root: String = "/sys/fs/cgroup") -> Int? {
        let system = (try? String(contentsOfFile: meminfo, encoding: .utf8)).flatMap(memAvailable(meminfo:))
        let limit = CPUBudget.smallestInCgroups(proc: proc, root: root, controller: "memory", v2: { bytes(limit: $0 + "/memory.max") },
                                                v1: { bytes(limit: $0 + "/memory.limit_in_bytes") })
        switch (system, limit) {
        case let (s?, l?): return min(s, l)
        case let (s, l): return s ?? l
        }
    }

    /// `MemAvailable` of /proc/meminfo, in bytes.
    static func memAvailable(meminfo text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 2, let kB = Int(fields[1]) else { return nil }
            return kB * 1024
        }
        return nil
    }

    /// A limit file's bytes; nil for "max" (v2) or v1's "no limit" (a number near Int64's largest).
    private static func bytes(limit file: String) -> Int? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
              let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0, value < 1 << 60 else { return nil }
        return value
    }
}
