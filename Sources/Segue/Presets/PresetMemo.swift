/// Presets read once for the many jobs of one plan. Jobs that name the same preset with the
/// same keys (the story's, the job's) and the same values for the preset's own variables get
/// one `Preset`, read once: a template's hundred thousand rows differ in their values, rarely
/// in their preset. A memo lives for one planning pass and takes the preset files as they
/// were when first read, as the plan does; a load that failed fails again the same way
/// without being read again.
final class PresetMemo {
    private struct Key: Hashable {
        var name: String
        var underlying: [String]
        var settings: [String]
        var values: [ConfigNode]
        /// The values of the variables the preset itself uses, and only those.
        var vars: [String: String]
    }

    private let overrides: PresetPatch
    private let library: PresetLibrary?
    private var loaded: [Key: Result<Shared<Preset>, any Error>] = [:]
    /// The variables each preset uses (nil: its tree does not read, so nothing is kept).
    private var variables: [String: Set<String>?] = [:]

    init(overrides: PresetPatch, library: PresetLibrary?) {
        self.overrides = overrides
        self.library = library
    }

    /// `Preset.load(name, overrides:, underlying:, settings:, vars:, library:)` with this
    /// memo's overrides and library, read once per distinct key; the jobs made from it share
    /// its storage.
    func load(_ name: String, underlying: [(key: String, value: ConfigNode)], settings: [(key: String, value: ConfigNode)],
              vars: [String: String]) throws -> Shared<Preset> {
        func read() throws -> Shared<Preset> {
            WorkCounts.add(.presetsRead)
            return Shared(try Preset.load(name, overrides: overrides, underlying: underlying, settings: settings, vars: vars, library: library))
        }
        guard let used = usedVariables(of: name) else { return try read() }
        let key = Key(name: name, underlying: underlying.map(\.key), settings: settings.map(\.key),
                      values: (underlying + settings).map(\.value), vars: vars.filter { used.contains($0.key) })
        if let known = loaded[key] { return try known.get() }
        let result = Result { try read() }
        loaded[key] = result
        return try result.get()
    }

    private func usedVariables(of name: String) -> Set<String>? {
        if let known = variables[name] { return known }
        let found = (try? (library ?? PresetLibrary.standard()).variables(of: name)).map { Set($0.used.keys) }
        variables[name] = .some(found)
        return found
    }
}
