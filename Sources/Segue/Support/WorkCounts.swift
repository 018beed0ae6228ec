/// Counts of the work done on the user's data, kept where that work is done, so that a test
/// checks a reader or a plan grows in proportion to its data by counting its work at two sizes,
/// never by timing it. Nothing is counted unless a caller asks, by running the work inside
/// `counting` (a task-local value: work on other threads and tasks is not counted).
public final class WorkCounts: Sendable {
    /// What is counted.
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// Bytes a reader of rows or cues looked at: each pass over a byte counts once.
        case bytesScanned
        /// Steps of the binary searches that find a subtitle cue's line.
        case searchSteps
        /// Paths looked up in the file system while planning (canonical forms, identities).
        case fileLookups
        /// Presets read and resolved (a batch's rows share one where their settings agree).
        case presetsRead
        /// Files read for their digest (a fingerprint's inputs, once each per batch).
        case filesDigested
        /// Files whose bytes were read and hashed for a digest: not found unchanged among the
        /// digests kept (`Fingerprint.contentDigest`).
        case filesHashed
        /// Rows or jobs planned: a manifest's entries, a template's rows.
        case entriesPlanned
        /// Blocks of sound the soundtrack's mix passed through a filter: each block once per
        /// filter of the graph it went through (the music's, a voice's, the mix's tail).
        case soundBlocks
        /// Texts laid out by Pango (to measure them or to draw them).
        case textLayouts
        /// Sound files analysed for their beats (not found in `BeatCache`).
        case soundsAnalysed
    }

    @TaskLocal static var current: WorkCounts?
    private let counts = Locked<[Kind: Int]>([:])

    public init() {}

    /// How much of `kind` was counted.
    public subscript(kind: Kind) -> Int { counts.withLock { $0[kind, default: 0] } }

    /// Runs `body`, counting the work it does on this task into these counts.
    public func counting<T>(_ body: () throws -> T) rethrows -> T {
        try WorkCounts.$current.withValue(self) { try body() }
    }

    /// Counts `amount` of `kind` where a caller is counting.
    static func add(_ kind: Kind, _ amount: Int = 1) {
        guard amount != 0, let current else { return }
        current.counts.withLock { $0[kind, default: 0] += amount }
    }
}
