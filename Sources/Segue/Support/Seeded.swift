/// Numbers from a seed, the same on every machine: what seeded looks (a luma matte's blocks, a
/// glitch's bands, a shake, a light leak) draw from.
enum Seeded {
    /// A number in 0..<1 from `cell` and `seed` (SplitMix64's finaliser).
    static func unit(_ cell: UInt64, _ seed: UInt64) -> Double {
        var z = cell &+ seed &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
