extension ConfigNode {
    /// This tree with `timing: beats` (or `strict`, `none`) made the mapping it is short for
    /// (`BeatTiming`). Each layer of settings is made so before layers are merged, so that a
    /// layer's `timing.every` adds to a `timing: beats` beneath it.
    func timingShorthand() -> ConfigNode {
        guard case let .mapping(pairs) = value, let index = pairs.firstIndex(where: { $0.key == "timing" }),
              case let .scalar(text, false) = pairs[index].value.value,
              let beats = ["beats": "true", "strict": "strict", "none": "false"][text] else { return self }
        var copy = pairs
        let origin = pairs[index].value.origin
        copy[index].value = ConfigNode(.mapping([(key: "beats", value: ConfigNode(.scalar(beats, quoted: false), origin: origin))]), origin: origin)
        return ConfigNode(.mapping(copy), origin: self.origin)
    }
}
