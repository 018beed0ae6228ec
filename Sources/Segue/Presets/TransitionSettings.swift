import Foundation

extension Preset {
    public struct TransitionSettings: Equatable, Sendable {
        /// The transition that draws these settings, with its parameters' values: its kind
        /// is resolved to a type once, when the preset is read.
        public var transition: any Transition = StoriesCube()
        /// Seconds.
        public var duration: Double = 0.5
        /// The duration as written in beats (`duration: 1b`, under `timing: beats`), which
        /// `timed(beat:)` makes seconds; nil when written in seconds.
        public var durationBeats: Double?
        public var curve: TimingCurve = .easeInEaseOut
        /// Motion blur over its frames (off unless asked for).
        public var motionBlur = MotionBlur.off

        /// The blur its frames are drawn with: `motionBlur` when set, else the transition's own
        /// (a whip pan's), else none.
        public var effectiveMotionBlur: MotionBlur {
            motionBlur.isOff ? transition.ownMotionBlur ?? .off : motionBlur
        }

        /// The transition's name (`TransitionRegistry`).
        public var kind: String { type(of: transition).name }
        /// Its parameters' values.
        public var values: ParameterValues { transition.values }

        /// Reads a `transition` section: its kind, duration, curve and the kind's parameters.
        /// Keys left out take `base`'s values (a story's cut over the preset's transition; the
        /// parameters only when the kind is the same), or the defaults.
        /// With `beats` (the preset's timing is on) the duration may be given in beats.
        init(reading t: inout ConfigReader, over base: TransitionSettings? = nil, beats: Bool = false) throws {
            // A gl-transitions name Segue has no port of runs the catalogue's file, when the user has it.
            var catalogue: (name: String, file: String)?
            if case let .scalar(written, _)? = t.node["kind"]?.value, TransitionRegistry.canonical(written) == nil,
               let file = GLSLTransition.catalogueFile(written) {
                catalogue = (written, file)
            }
            let name: String
            do {
                name = try t.choice("kind", default: base?.kind, among: TransitionRegistry.names + (catalogue.map { [$0.name] } ?? []),
                                    ignoringCase: true, "The transition between inputs.")
            } catch {
                // A gl: name: the ports, and where gl-transitions' own files would be found.
                guard case let PresetError.invalid(key, origin, value, _) = error, catalogue == nil,
                      case let .scalar(written, _)? = t.node["kind"]?.value, let hint = GLSLTransition.catalogueHint(for: written) else { throw error }
                throw PresetError.invalid(key: key, origin: origin, value: value, expected: TransitionRegistry.glExpectation(for: written, hint: hint))
            }
            // `choice` accepts only the registry's names; an alias's name sets parameters of its transition.
            guard var (kind, named) = TransitionRegistry.resolve(name) ?? catalogue.map({ _ in (GLSLTransition.self, ParameterValues()) }) else {
                preconditionFailure("'\(name)' is not a registered transition")
            }
            let inBeats = t.node["duration"].flatMap { node -> Double? in
                guard case let .scalar(text, _) = node.value, text.hasSuffix("b") else { return nil }
                return Double(text.dropLast())
            }
            if let inBeats {
                guard beats, (0...64).contains(inBeats) else {
                    let node = t.node["duration"]!
                    throw PresetError.invalid(key: t.fullKey("duration"), origin: node.origin, value: "'\(format(inBeats))b'",
                                              expected: beats ? "beats in 0...64, like 1b or 0.5b" : "seconds, 0...60: a duration in beats (1b) needs timing: beats, which gives the beat's length")
                }
                _ = t.raw("duration", type: "number", default: format(base?.duration ?? 0.5), TransitionSettings.durationMeaning)
                (duration, durationBeats) = (base?.duration ?? 0.5, inBeats)
            } else {
                duration = try t.number("duration", default: base?.duration ?? 0.5, in: 0...60, TransitionSettings.durationMeaning)
                durationBeats = t.node["duration"] == nil ? base?.durationBeats : nil
            }
            curve = try t.parsed("curve", default: base?.curve ?? .easeInEaseOut, expected: "one of: " + TimingCurve.names.joined(separator: ", "),
                                 "Timing curve applied to the transition's progress.") { TimingCurve(parsing: $0) }
            motionBlur = try MotionBlur.read(&t, default: base?.motionBlur ?? .off)
            var section = t.node
            if let catalogue {
                named.set(GLSLTransition.file.key, .text(catalogue.file))
                if section["file"] == nil { section.append("file", ConfigNode(.scalar(catalogue.file, quoted: true), origin: t.node.origin)) }
                kind = GLSLTransition.self
            }
            let parameters = try kind.parameters(in: section)
            let read = try ParameterValues(reading: &t, parameters: parameters)
            // Keys given over the base's values (a cut of the same kind) or the alias's.
            let start = base?.kind == name ? base?.values : named.pairs.isEmpty ? nil : named
            guard var values = start else { transition = kind.init(read); return }
            for parameter in parameters where t.node[parameter.key] != nil {
                values.set(parameter.key, read.value(parameter.key) ?? parameter.defaultValue)
            }
            transition = kind.init(values)
        }

        static let durationMeaning = "Seconds each transition lasts; under timing: beats, or beats (1b, 0.5b: beats of the music's tempo)."

        public init() {}

        /// These settings with a duration given in beats made seconds, a beat lasting `beat`.
        public func timed(beat: Double) -> TransitionSettings {
            guard let durationBeats else { return self }
            var timed = self
            timed.duration = durationBeats * beat
            return timed
        }

        /// Settings for `transition`.
        public init(_ transition: any Transition, duration: Double = 0.5, curve: TimingCurve = .easeInEaseOut, motionBlur: MotionBlur = .off) {
            self.transition = transition
            self.duration = duration
            self.curve = curve
            self.motionBlur = motionBlur
        }

        public static func == (a: TransitionSettings, b: TransitionSettings) -> Bool {
            a.kind == b.kind && a.values == b.values && a.duration == b.duration && a.durationBeats == b.durationBeats && a.curve == b.curve && a.motionBlur == b.motionBlur
        }
    }
}
