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
        guard let text = try? String(contentsOfFile: proc, encoding: .utf8) else { return nil }
        var best: Int?
        func read(_ file: String) -> String? { try? String(contentsOfFile: file, encoding: .utf8) }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            let limit: (String) -> Int?
            let base: String
            if fields[0] == "0" && fields[1].isEmpty {
                base = root
                limit = { folder in read(folder + "/cpu.max").flatMap(quota(cpuMax:)) }
            } else if controllers.contains("cpu") {
                base = root + "/" + fields[1]
                limit = { folder in
                    guard let q = read(folder + "/cpu.cfs_quota_us"), let p = read(folder + "/cpu.cfs_period_us") else { return nil }
                    return quota(cpuMax: q.trimmingCharacters(in: .whitespacesAndNewlines) + " " + p)
                }
            } else {
                continue
            }
            var path = String(fields[2])
            while true {
                if let value = limit(base + (path == "/" ? "" : path)) { best = min(best ?? value, value) }
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
