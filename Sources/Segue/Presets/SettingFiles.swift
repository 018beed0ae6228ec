/// The preset keys that name a file, found relative to the file that sets them (a preset, a
/// story, a manifest), as its other paths are: the logo's picture and a luma wipe's matte
/// (unless it names one of Segue's own mattes), a GLSL transition's file.
enum SettingFiles {
    /// Each as its section and key (`logo` and `image` for `logo.image`), and the values that
    /// name no file.
    static let keys: [(section: String, key: String, notAFile: @Sendable (String) -> Bool)] = [
        ("logo", "image", { _ in false }),
        ("transition", "matte", { MatteShape(rawValue: $0.lowercased()) != nil }),
        ("transition", "file", { _ in false }),
        ("transition", "clip", { _ in false }),
    ]

    /// `settings` with the files they name resolved by `resolve`, dotted (`transition.matte`)
    /// or nested (`transition: {matte: …}`).
    static func resolving(_ settings: [(key: String, value: ConfigNode)], _ resolve: (String) -> String) -> [(key: String, value: ConfigNode)] {
        settings.map { setting in
            switch setting.value.value {
            case let .scalar(text, quoted):
                guard let file = keys.first(where: { "\($0.section).\($0.key)" == setting.key }), !text.isEmpty, !file.notAFile(text) else { return setting }
                return (setting.key, ConfigNode(.scalar(resolve(text), quoted: quoted), origin: setting.value.origin))
            case .mapping:
                return (setting.key, resolvingSection(setting.key, setting.value, resolve))
            case .sequence:
                return setting
            }
        }
    }

    /// A section's mapping (`transition: {kind: luma, matte: …}`) with the files it names resolved.
    static func resolvingSection(_ section: String, _ node: ConfigNode, _ resolve: (String) -> String) -> ConfigNode {
        guard case let .mapping(pairs) = node.value else { return node }
        return ConfigNode(.mapping(pairs.map { pair in
            guard let file = keys.first(where: { $0.section == section && $0.key == pair.key }),
                  case let .scalar(text, quoted) = pair.value.value, !text.isEmpty, !file.notAFile(text) else { return pair }
            return (pair.key, ConfigNode(.scalar(resolve(text), quoted: quoted), origin: pair.value.origin))
        }), origin: node.origin)
    }
}
