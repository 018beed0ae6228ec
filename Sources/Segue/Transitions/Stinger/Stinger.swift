import Foundation

/// Stinger: a short clip with alpha played over a cut, as OBS's and CasparCG's stingers are.
/// The cut lasts the clip's own length (its `duration` and `curve` are the clip's: linear);
/// the pages under it switch from the outgoing to the incoming one `cut` seconds into it, or,
/// with `matte`, through a track matte (OBS's track matte mode: where the matte clip is white
/// the incoming page shows, `cut` unused). The clip is drawn over the frame, fixed to the
/// screen, its width the canvas's, premultiplied; its sound, with `audio`, joins the mix as a
/// voice track does, the music ducked under it. The job resolves it (`Job.stingers`): it
/// probes the clip, sets the cut's length and adds the clip's overlay and sound.
public struct Stinger: PixelTransition, FileTransition {
    public static let name = "stinger"
    public static let summary = "A clip with alpha played over the cut, the pages switching under it at a moment of it or through a track matte (OBS's stinger)."
    public static let family = TransitionFamily.stingers
    public static let source = "OBS Studio's stinger transition (its cut point and track matte mode)"
    public static let clip = Parameter.text("clip", default: "", expected: "a clip with alpha that exists",
                                            "The stinger: a clip with alpha (ProRes 4444 .mov, VP9 .webm with alpha, animated WebP, GIF or APNG), or a folder of PNGs (30 a second, in their names' order), relative to the file.",
                                            check: { Stinger.problem($0, folders: true) })
    public static let cut = Parameter.number("cut", default: 0.5, in: 0...3600, "Seconds into the clip when the pages switch under it (before the clip's end).")
    public static let matte = Parameter.text("matte", default: "", expected: "a track matte clip that exists",
                                             "A track matte clip instead of the cut point: where it is white the incoming page shows.",
                                             check: { Stinger.problem($0, folders: false) })
    public static let audio = Parameter.flag("audio", default: false, "The clip's sound joins the mix, the music ducked under it.")
    public static let parameters = [clip.erased, cut.erased, matte.erased, audio.erased]

    public let values: ParameterValues
    /// Where the pages switch, as a share of the clip's length (set by the job, which knows it).
    public private(set) var switchAt = 0.5
    /// The track matte, opened before the render (`opening`); nil without one.
    public private(set) var supply: (any MatteSupply)?

    public init(_ values: ParameterValues) { self.values = values }

    /// What is wrong with `path` as a stinger's clip (a file, or with `folders` a folder of
    /// PNGs) or matte (a file), if anything: it must exist.
    static func problem(_ path: String, folders: Bool) -> String? {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else { return "a clip that exists: there is no such file" }
        guard folder.boolValue else { return nil }
        guard folders else { return "a clip file, not a folder" }
        let pngs = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.lowercased().hasSuffix(".png") }
        return pngs.count < 2 ? "a clip, or a folder of PNGs (this folder has \(pngs.count))" : nil
    }

    /// The stinger for a clip `length` seconds long.
    public func lasting(_ length: Double) -> Stinger {
        var stinger = self
        stinger.switchAt = length > 0 ? min(max(values[Self.cut] / length, 0), 1) : 0
        return stinger
    }

    public func opening(_ files: any TransitionFiles, width: Int, height: Int, limits: Limits) throws -> Stinger {
        guard !values[Self.matte].isEmpty else { return self }
        var opened = self
        opened.supply = try files.matte(values[Self.matte], fill: true, invert: false, width: width, height: height, limits: limits)
        return opened
    }

    /// The pages do not move; the clip over them is an overlay, which moves as it plays.
    public func motionBound(bounds: Rect) -> MotionBound { .layers }

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = min(max(progress, 0), 1)
        if let matte = supply?.matte(at: p) {
            return { y, pages, out in
                matte.values.withUnsafeBufferPointer { m in
                    let row = m.baseAddress! + y * width
                    pages.mix(y, into: out) { x in Float(row[x]) / 65535 }
                }
            }
        }
        let incoming: Float = p >= switchAt ? 1 : 0
        return { y, pages, out in pages.mix(y, into: out, constant: incoming) }
    }
}
