import Foundation

/// Settings a whole batch shares.
public struct BatchSettings: Sendable {
    /// Overrides every job gets before its own `set`.
    public var overrides: PresetPatch = []
    public var threads: Int?
    public var overwrite = false
    /// Keep outputs made from the same fingerprint; render the rest (see `Fingerprint`).
    public var resume = false
    public var limits = Limits()
    /// Jobs run at once.
    public var parallel = 1
    /// Where presets are found by name; nil for `PresetLibrary.standard()`.
    public var library: PresetLibrary?

    public init(overrides: PresetPatch = [], threads: Int? = nil, overwrite: Bool = false, resume: Bool = false, parallel: Int = 1) {
        self.overrides = overrides
        self.threads = threads
        self.overwrite = overwrite
        self.resume = resume
        self.parallel = parallel
    }
}

/// One job of a batch, checked and ready to run.
public struct BatchJob: Sendable {
    public var entry: Manifest.Entry
    public var job: Job
    /// The job's fingerprint, computed when checking it.
    public var fingerprint: String?
    /// True when `--resume` will keep its output: it was made from the same fingerprint.
    public var upToDate: Bool
}

public enum BatchRunner {
    /// Checks every entry before any runs: its preset and keys, its inputs, its output. Gives
    /// the jobs ready to run and, for each entry that is not, its problems (with the
    /// manifest's line), in manifest order.
    public static func prepare(_ entries: [Manifest.Entry], settings: BatchSettings)
        -> (jobs: [BatchJob], problems: [(entry: Manifest.Entry, problems: [String])]) {
        var entries = entries
        return prepare(consuming: &entries, settings: settings)
    }

    /// `prepare`, leaving each entry as its plan keeps it (`Entry.planned`) once its job is
    /// made: the stories of a hundred thousand rows are not all held at once beside their jobs.
    public static func prepare(consuming entries: inout [Manifest.Entry], settings: BatchSettings)
        -> (jobs: [BatchJob], problems: [(entry: Manifest.Entry, problems: [String])]) {
        var jobs: [BatchJob] = []
        jobs.reserveCapacity(entries.count)
        var problems: [(entry: Manifest.Entry, problems: [String])] = []
        plan(consuming: &entries, settings: settings) { planned in
            switch planned {
            case let .job(job): jobs.append(job)
            case let .problems(entry, found): problems.append((entry, found))
            }
        }
        return (jobs, problems)
    }

    /// An entry as planned: its job, ready to run, or what is wrong with it.
    public enum Planned: Sendable {
        case job(BatchJob)
        case problems(Manifest.Entry, [String])
    }

    /// Plans each entry in turn and hands it to `each`, keeping nothing: a dry run of a million
    /// rows holds each row's job only while it is checked. A template's row is made into its
    /// story here, again: the rows were checked when read (`Manifest.rows`), and kept only
    /// their values.
    public static func plan(consuming entries: inout [Manifest.Entry], settings: BatchSettings, _ each: (Planned) -> Void) {
        Paths.remembering { planNow(&entries, settings: settings, each) }
    }

    private static func planNow(_ entries: inout [Manifest.Entry], settings: BatchSettings, _ each: (Planned) -> Void) {
        let digests = Fingerprint.Digests()
        let presets = PresetMemo(overrides: settings.overrides, library: settings.library)
        for k in entries.indices {
            WorkCounts.add(.entriesPlanned)
            var entry = entries[k]
            entries[k] = entry.planned
            guard entry.problems.isEmpty else {
                each(.problems(entries[k], entry.problems))
                continue
            }
            if let row = entry.row {
                do {
                    entry.story = try row.story()
                } catch {
                    each(.problems(entries[k], ["\(Manifest.rowLabel(entry.origin, number: entry.number, id: row.id)): \(error)"]))
                    continue
                }
            }
            do {
                let preset = try presets.load(entry.preset, underlying: entry.story?.settings ?? [], settings: entry.settings,
                                              vars: entry.story?.vars ?? [:])
                let pictures: JobRequest.Pictures = entry.story.map { .story($0) } ?? entry.slides.map { .slides($0) } ?? .files(entry.inputs)
                var request = JobRequest(pictures, preset: preset, output: entry.output, format: entry.format, limits: settings.limits,
                                         overwrite: settings.overwrite)
                request.delivery.resume = settings.resume
                if entry.story == nil { request.voices = entry.voices }
                if let threads = settings.threads { request.delivery.threads = threads }
                let job = try Job(request)
                let found = job.problems()
                guard found.isEmpty else {
                    each(.problems(entries[k], found.map { "\(entry.origin) (job \(entry.number), \(entry.name)): \($0)" }))
                    continue
                }
                // Only --resume compares fingerprints before rendering; otherwise each export
                // takes its own beside its first frames.
                let fingerprint = settings.resume ? try Fingerprint.of(job, digests: digests) : nil
                let upToDate = settings.resume && Fingerprint.stored(output: job.output, format: job.format) == fingerprint
                each(.job(BatchJob(entry: entries[k], job: job, fingerprint: fingerprint, upToDate: upToDate)))
            } catch let error as PresetError {
                each(.problems(entries[k], ["\(error)"]))
            } catch {
                each(.problems(entries[k], ["\(entry.origin) (job \(entry.number), \(entry.name)): \(error)"]))
            }
        }
    }

    /// Runs the jobs, `parallel` at a time; a failed job does not stop the others.
    /// `progress` may be called from several threads at once when jobs run in parallel.
    /// Still pictures that more than one job draws are decoded once (`SharedPictures`), and so
    /// is music or a voice track that more than one job plays (`SharedSounds`).
    public static func run(_ jobs: [BatchJob], settings: BatchSettings, cancellation: Cancellation? = nil,
                           progress: (@Sendable (Manifest.Entry, ExportProgress) -> Void)? = nil) -> BatchRun {
        let running = jobs.filter { !$0.upToDate }.map(\.job)
        let shared = SharedPictures.share(sharedStills(running))
        let sounds = SharedSounds.keep(sharedFiles(running.map { job in Set([job.preset.audio.file].compactMap { $0 } + job.voices.map(\.file)) }))
        let outcomes: [JobOutcome]
        if settings.parallel == 1 {
            // One at a time, the next job that renders is readied while each runs.
            var ahead: [Int: PreparedAhead] = [:]
            // The job that renders after each one, found in one pass from the end.
            var nextRendered = [Int?](repeating: nil, count: jobs.count)
            for i in jobs.indices.dropLast().reversed() { nextRendered[i] = jobs[i + 1].upToDate ? nextRendered[i + 1] : i + 1 }
            outcomes = jobs.indices.map { i in
                if cancellation?.isCancelled != true, let next = nextRendered[i], ahead[next] == nil {
                    ahead[next] = PreparedAhead(jobs[next].job)
                }
                return runOne(jobs[i], cancellation: cancellation, ahead: ahead.removeValue(forKey: i), progress: progress)
            }
        } else {
            outcomes = (try? parallelMap(jobs, threads: settings.parallel) { job in
                runOne(job, cancellation: cancellation, progress: progress)
            }) ?? []
        }
        return BatchRun(outcomes: outcomes, shared: SharedPictures.release(shared) + SharedSounds.release(sounds))
    }

    static func runOne(_ batchJob: BatchJob, cancellation: Cancellation?, ahead: PreparedAhead? = nil,
                       progress: (@Sendable (Manifest.Entry, ExportProgress) -> Void)?) -> JobOutcome {
        let entry = batchJob.entry
        var outcome = JobOutcome(job: entry.number, name: entry.name, output: entry.output, status: .failed)
        if cancellation?.isCancelled == true {
            outcome.status = .cancelled
            return outcome
        }
        do {
            let result = try Exporter.run(batchJob.job, fingerprint: batchJob.fingerprint, cancellation: cancellation, ahead: ahead) { progress?(entry, $0) }
            outcome.frames = result.frameCount
            outcome.seconds = (result.seconds * 100).rounded() / 100
            outcome.status = result.skipped ? .skipped : .ok
            if result.readiedAhead { outcome.readiedAhead = true }
        } catch ExportError.cancelled {
            outcome.status = .cancelled
        } catch {
            outcome.reason = "\(error)"
        }
        return outcome
    }
}

extension BatchRunner {
    /// The still pictures (inputs, stickers, logos) that more than one of `jobs` draws.
    static func sharedStills(_ jobs: [Job]) -> Set<String> {
        sharedFiles(jobs.map(stills))
    }

    /// The still pictures `job` draws: its photos and still stickers.
    static func stills(_ job: Job) -> Set<String> {
        let stickers = (job.overlays.joined() + job.screenOverlays).flatMap { OverlayKind.of($0).stills($0) }
        return Set(job.inputs.indices.filter { job.clips[$0] == nil }.map { job.inputs[$0] } + stickers)
    }

    /// The still pictures `job` draws, as `SharedPictures.share` takes them (canonical paths):
    /// a program that renders the same job again and again (a preview) shares them, so that
    /// each is decoded once.
    public static func stillPictures(of job: Job) -> Set<String> { Set(stills(job).map(Paths.canonical)) }

    /// The files (canonical) that more than one of the sets names.
    static func sharedFiles(_ sets: [Set<String>]) -> Set<String> {
        var count: [String: Int] = [:]
        for files in sets {
            for path in Set(files.map(Paths.canonical)) { count[path, default: 0] += 1 }
        }
        return Set(count.filter { $0.value > 1 }.keys)
    }
}
