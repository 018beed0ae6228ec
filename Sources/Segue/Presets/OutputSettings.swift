// How an animated GIF and an animated WebP are written: keys of the preset, read with it;
// the sinks that write them are the export room's (GIFSink.swift, VideoSink.swift).

extension Preset {
    /// How a GIF is written: its palette, dithering and looping.
    public struct GIFSettings: Equatable, Sendable {
        /// Where the palette's 256 colours come from.
        public enum Palette: String, CaseIterable, Sendable {
            /// One palette for the whole video, from every pixel of every frame.
            case video
            /// One palette for the video, from the pixels that change (still backgrounds weigh
            /// less); only the changed rectangle of each frame is remapped.
            case diff
            /// A palette for each frame.
            case frame
        }

        public var palette = Palette.video
        /// FFmpeg paletteuse's dithering.
        public var dither = "sierra2_4a"
        /// -1: play once; 0: loop for ever; N: play N more times.
        public var loop = 0
        /// The rate a GIF gets unless `--fps` says otherwise.
        public static let defaultFPS = 15
        /// paletteuse's dithering methods.
        public static let dithers = ["sierra2_4a", "sierra2", "floyd_steinberg", "bayer", "heckbert", "sierra3", "burkes", "atkinson", "none"]

        public init() {}

        init(reading g: inout ConfigReader) throws {
            palette = Palette(rawValue: try g.choice("palette", default: "video", among: Palette.allCases.map(\.rawValue),
                                                     "A GIF's 256 colours: one palette from every frame (video), from what moves (diff), or one per frame (frame)."))!
            dither = try g.choice("dither", default: "sierra2_4a", among: GIFSettings.dithers, "How a GIF's colours are dithered (FFmpeg paletteuse's methods); none: flat.")
            loop = try g.integer("loop", default: 0, in: -1...65535, "How a GIF loops: 0 for ever, -1 not at all, N that many more times.")
        }
    }
}

extension Preset {
    /// How an animated WebP is written.
    public struct WebPSettings: Equatable, Sendable {
        /// libwebp's quality, 0 to 100 (or, lossless, its effort).
        public var quality = 75
        public var lossless = false
        /// 0: loop for ever; N: play N times.
        public var loop = 0

        public init() {}

        init(reading w: inout ConfigReader) throws {
            quality = try w.integer("quality", default: 75, in: 0...100, "A WebP's quality, 0 to 100 (libwebp's; lossless: how hard it compresses).")
            lossless = try w.flag("lossless", default: false, "Lossless WebP frames: exact, and larger.")
            loop = try w.integer("loop", default: 0, in: 0...65535, "How a WebP loops: 0 for ever, N: played N times.")
        }
    }
}
