import Foundation

// The preset's schema as people read it: every key in effect (`segue presets show`) and the
// reference of every key (docs/presets.md), both made from the reads the readers declare.
extension Preset {
    /// Every key a preset may have when its transition is `kind`, with type, default, range
    /// and meaning.
    public static func schema(for kind: String) -> [ConfigReader.Field] {
        let schema = ConfigReader.Schema()
        let node = ConfigNode(.mapping([("transition", ConfigNode(.mapping([("kind", ConfigNode(.scalar(kind, quoted: false), origin: .builtIn))]), origin: .builtIn))]), origin: .builtIn)
        _ = try? Preset(node, schema: schema)
        return schema.fields
    }

    /// A preset's configuration with every key in effect (defaults filled in), as YAML.
    public static func resolvedYAML(_ node: ConfigNode) throws -> String {
        let schema = ConfigReader.Schema()
        _ = try Preset(node, schema: schema)
        var text = ""
        var section = ""
        for field in schema.fields {
            let parts = field.key.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2 {
                if parts[0] != section { text += "\(parts[0]):\n"; section = parts[0] }
                text += "  \(parts[1]): \(field.value)\n"
            } else {
                section = ""
                text += "\(field.key): \(field.value)\n"
            }
        }
        return text
    }

    /// A transition's own keys (`transition.*`, less the kind, duration, curve and motion blur every
    /// transition has), with type, default, range and meaning.
    public static func parameters(of kind: any Transition.Type) -> [ConfigReader.Field] {
        parameters(named: kind.name)
    }

    /// The transition keys every transition has.
    static let sharedTransitionKeys = ["transition.kind", "transition.duration", "transition.curve", "transition.motionBlur"]

    /// The transition named `name`, or a preset error that lists the names and suggests the
    /// nearest one.
    public static func transition(named name: String) throws -> any Transition.Type {
        if let kind = TransitionRegistry.named(name) { return kind }
        if GLSLTransition.catalogueFile(name) != nil { return GLSLTransition.self }
        let origin = ConfigOrigin.option("segue transitions show \(name)")
        if let hint = GLSLTransition.catalogueHint(for: name) {
            throw PresetError.invalid(key: "transition", origin: origin, value: "'\(name)'", expected: TransitionRegistry.glExpectation(for: name, hint: hint))
        }
        let hint = suggestion(for: name, among: TransitionRegistry.names).map { "; did you mean '\($0)'?" } ?? ""
        throw PresetError.invalid(key: "transition", origin: origin, value: "'\(name)'",
                                  expected: "one of: \(TransitionRegistry.names.joined(separator: ", "))\(hint)")
    }

    /// The keys of the transition named `name` (`transition.*`, less those every transition
    /// has): a catalogue file's are its uniforms, read from the file.
    public static func parameters(named name: String) -> [ConfigReader.Field] {
        schema(for: name).filter { $0.key.hasPrefix("transition.") && !sharedTransitionKeys.contains($0.key) }
    }

    /// The preset reference as Markdown: the keys every preset has, then each transition's own.
    public static func referenceMarkdown() -> String {
        func table(_ fields: [ConfigReader.Field]) -> String {
            "| key | type | default | accepted | meaning |\n|---|---|---|---|---|\n" + fields.map { f in
                "| `\(f.key)` | \(f.type) | `\(f.defaultValue)` | \(f.range) | \(f.meaning) |"
            }.joined(separator: "\n") + "\n"
        }
        let shared = sharedTransitionKeys
        let all = TransitionRegistry.all.map { ($0, schema(for: $0.name)) }
        let common = all[0].1.filter { !$0.key.hasPrefix("transition.") || shared.contains($0.key) }
        var text = """
            # Preset reference

            A preset is a YAML file of these keys; any key may be overridden on the command line
            with `--set KEY=VALUE` (the value read as YAML). Keys left out take their default.
            This page is generated from the schema the preset reader declares, and a test checks
            that it is current.

            A preset may also start from another (`extends: NAME`, or a file relative to this one),
            and declare variables (`vars: {brand: "#e1306c", logo: ~}`) that any text value uses as
            `{{brand}}`: their stories, `--var` and template rows give them
            ([Templates](command-line.md#templates)).

            ## Keys of every preset

            \(table(common))
            """
        for (kind, fields) in all {
            let own = fields.filter { $0.key.hasPrefix("transition.") && !shared.contains($0.key) }
            text += "\n## `transition.kind: \(kind.name)`\n\n\(kind.summary)\n\n"
            text += own.isEmpty ? "No keys of its own.\n" : table(own)
        }
        // Text overlays and captions are keys of stories, not of presets, read by readers of
        // their own: their schemas, from a read of a minimal item.
        let captions = ConfigReader.Schema()
        let reading = OverlayReading(base: TextStyle(), styles: TextStyle.shipped, resolve: { $0 }, limits: Limits())
        for kind in OverlayKind.all {
            let schema = ConfigReader.Schema()
            let item = ConfigNode(.mapping([(kind.key, ConfigNode(.scalar(kind.sample, quoted: false), origin: .builtIn))]), origin: .builtIn)
            _ = try? Overlay.read(item, key: "", reading: reading, schema: schema)
            text += "\n## \(kind.heading)\n\n\(kind.about)\n\n\(table(schema.fields))"
        }
        _ = try? Captions.overlays(ConfigNode(.scalar("(none).srt", quoted: false), origin: .builtIn), key: "", preset: Preset(), schema: captions)
        text += """

            ## Captions (`captions:` of a story)

            A file alone (`captions: talk.srt`) or a mapping of these keys.

            \(table(captions.fields))
            ## Named text styles

            Shipped with Segue, as this YAML; a preset's or a story's `styles:` adds to them or
            replaces one by its name.

            ```yaml
            \(TextStyle.shippedYAML)
            ```

            \(Target.referenceMarkdown)
            """
        return text
    }
}
