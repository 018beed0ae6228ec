/// Every transition Segue draws, in the order the preset reference lists them. The preset
/// reader, `docs/presets.md`, `segue presets` and the command line's help derive from this list.
public enum TransitionRegistry {
    public static let all: [any Transition.Type] = pageTransitions + catalogue

    /// The page transitions Segue started with: the seeds' cubes and zoom, and the fades,
    /// slides, flips and irises of every editor.
    static let pageTransitions: [any Transition.Type] = [
        StoriesCube.self, TelegramCube.self, Crossfade.self, Slide.self, Flip.self, Iris.self, CubeFold.self, SharedZoom.self,
    ] + cameraMoves + [Stinger.self]

    /// Transitions that move like a camera: whip pans, zooms, punches, glitches and shakes.
    static let cameraMoves: [any Transition.Type] = [Whip.self, ZoomBlur.self, Punch.self, Glitch.self, Shake.self]

    /// The catalogue: FFmpeg xfade's, luma wipes, GLSL files and the gl-transitions ports.
    static let catalogue: [any Transition.Type] = [
        // FFmpeg xfade's, by family.
        Cover.self, Reveal.self,
        Wipe.self, CornerWipe.self, Smooth.self, Diagonal.self, Slice.self, Wind.self, CircleOpen.self, CircleClose.self,
        VertOpen.self, VertClose.self, HorzOpen.self, HorzClose.self, Radial.self, Dissolve.self, CircleCrop.self, RectCrop.self,
        FadeBlack.self, FadeWhite.self, FadeGrays.self, FadeFast.self, FadeSlow.self, Distance.self,
        Pixelize.self, HBlur.self, Squeeze.self, ZoomIn.self,
        // A wipe through a matte of the user's own, or one Segue draws; a GLSL file run by Mesa.
        Luma.self, GLSLTransition.self,
    ] + gl

    /// The gl-transitions ports, named `gl:` and their file's name.
    static let gl: [any GLTransition.Type] = [
        GLDissolve.self, GLBookFlip.self, GLLinearBlur.self, GLFilmBurn.self, GLCrossZoom.self, GLDreamyZoom.self, GLSwap.self,
        GLCrosswarp.self, GLRipple.self, GLDirectional.self, GLDirectionalWipe.self, GLDreamy.self, GLInvertedPageCurl.self,
        GLSwirl.self, GLWind.self, GLWindowSlice.self, GLDoorway.self, GLBurn.self, GLHeart.self, GLPinwheel.self,
        GLAngular.self, GLCircle.self, GLFadeColor.self, GLFadeGrayscale.self, GLColorPhase.self, GLMultiplyBlend.self, GLSqueeze.self,
        GLWindowBlinds.self, GLKaleidoscope.self, GLRandomSquares.self, GLRotateScaleFade.self, GLDirectionalWarp.self,
    ]

    /// Other names for transitions: FFmpeg xfade's names for the directions and corners of
    /// Segue's directional transitions (a parameter set), `fade` for `crossfade`, and each
    /// gl-transitions port's file name alone where no other transition has it (`crosswarp`;
    /// `dissolve` and `wind` are xfade's).
    public static let aliases: [TransitionAlias] = directional + plainNames(of: gl, besides: all.map { $0.name } + directional.map(\.name))

    private static let directional: [TransitionAlias] = [TransitionAlias("fade", Crossfade.self)]
        + TransitionAlias.each(Slide.self, Slide.direction) { "slide" + $0.rawValue }
        + TransitionAlias.each(Cover.self, Cover.direction) { "cover" + $0.rawValue }
        + TransitionAlias.each(Reveal.self, Reveal.direction) { "reveal" + $0.rawValue }
        + TransitionAlias.each(Wipe.self, Wipe.direction) { "wipe" + $0.rawValue }
        + TransitionAlias.each(CornerWipe.self, CornerWipe.corner) { "wipe" + $0.rawValue }
        + TransitionAlias.each(Smooth.self, Smooth.direction) { "smooth" + $0.rawValue }
        + TransitionAlias.each(Diagonal.self, Diagonal.corner) { "diag" + $0.rawValue }
        + TransitionAlias.each(Slice.self, Slice.direction) { ["left": "hlslice", "right": "hrslice", "up": "vuslice", "down": "vdslice"][$0.rawValue]! }
        + TransitionAlias.each(Wind.self, Wind.direction) { ["left": "hlwind", "right": "hrwind", "up": "vuwind", "down": "vdwind"][$0.rawValue]! }
        + TransitionAlias.each(Squeeze.self, Squeeze.axis) { $0 == .horizontal ? "squeezeh" : "squeezev" }

    /// Each port's file name as a name of its own, unless `taken` has it (in any case).
    private static func plainNames(of ports: [any GLTransition.Type], besides taken: [String]) -> [TransitionAlias] {
        let taken = Set(taken.map { $0.lowercased() })
        // A loop, not filter and map over the metatypes: Swift 6.3's SIL generation crashes on those.
        var names: [TransitionAlias] = []
        for port in ports where !taken.contains(port.file.lowercased()) { names.append(TransitionAlias(port.file, port)) }
        return names
    }

    /// The names presets use, in order: the transitions', then the aliases'.
    public static let names: [String] = all.map { $0.name } + aliases.map(\.name)

    /// Each name lowered, and the name as the registry spells it (the first, if two differ in
    /// case only): a preset names its transition in any case.
    private static let spelled = Set(names)
    private static let spellings: [String: String] = {
        var spellings: [String: String] = [:]
        for name in names where spellings[name.lowercased()] == nil { spellings[name.lowercased()] = name }
        return spellings
    }()

    /// What a `gl:` name that is no port was expected to be: one of the ports (the nearest
    /// suggested), then `hint` (where gl-transitions' own files are looked for).
    public static func glExpectation(for name: String, hint: String) -> String {
        let ports = gl.map { "gl:" + $0.file }
        let near = suggestion(for: name, among: ports).map { "; did you mean '\($0)'?" } ?? ""
        return "one of Segue's gl: ports (\(ports.joined(separator: ", ")))\(near); \(hint)"
    }

    /// The names of the transitions that join two pages (a story's cuts), in order.
    public static var joiningTwoPages: [String] {
        // A loop, not filter and map over the metatypes: Swift 6.3's SIL generation crashes on those.
        var names: [String] = []
        for kind in all where kind.joinsTwoPages { names.append(kind.name) }
        for alias in aliases where alias.kind.joinsTwoPages { names.append(alias.name) }
        return names
    }

    /// The transition of that name (an alias's transition for an alias).
    public static func named(_ name: String) -> (any Transition.Type)? { resolve(name)?.kind }

    /// The transition of that name, in any case (`gl:Crosswarp`), and the parameters its name
    /// sets (none but an alias's).
    public static func resolve(_ name: String) -> (kind: any Transition.Type, values: ParameterValues)? {
        let name = canonical(name) ?? name
        if let kind = all.first(where: { $0.name == name }) { return (kind, ParameterValues()) }
        return aliases.first { $0.name == name }.map { ($0.kind, $0.values) }
    }

    /// The name as the registry spells it (`gl:crosswarp` for `GL:CrossWarp`), or nil for none.
    public static func canonical(_ name: String) -> String? {
        if spelled.contains(name) { return name }
        return spellings[name.lowercased()]
    }
}

/// Another name for a transition with some of its parameters set (`slideleft` for `slide`
/// with direction left).
public struct TransitionAlias: Sendable {
    public let name: String
    public let kind: any Transition.Type
    public let values: ParameterValues

    init(_ name: String, _ kind: any Transition.Type, values: ParameterValues = ParameterValues()) {
        self.name = name
        self.kind = kind
        self.values = values
    }

    /// The parameters its name sets, as `key=value` words (`direction=left`).
    public var settings: String {
        values.pairs.map { pair in
            if case let .text(text) = pair.value { return "\(pair.key)=\(text)" }
            return "\(pair.key)=\(pair.value)"
        }.joined(separator: " ")
    }

    /// An alias for each value of `kind`'s `parameter`, named by `name`.
    static func each<Value: CaseIterable & Sendable>(_ kind: any Transition.Type, _ parameter: Parameter<Value>,
                                                     name: (Value) -> String) -> [TransitionAlias] {
        Value.allCases.map { value in
            var values = ParameterValues()
            values[parameter] = value
            return TransitionAlias(name(value), kind, values: values)
        }
    }
}
