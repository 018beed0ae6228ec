/// A transition: a pure function from progress to a layer tree. It never touches pixels;
/// the compositor draws what it returns, and it sees only the trees it builds itself.
///
/// A video moves through a list of still *screens*, holding on each and transitioning
/// between neighbours. For most transitions the screens are the inputs' full-screen pages;
/// a transition may build others (a profile grid and detail screens, a cube of faces).
///
/// Adding one is one Swift file, a type conforming to this protocol (or to `PageTransition`)
/// with its `name`, a `summary` naming its source, its parameters declared once as static
/// `Parameter`s and listed in `parameters`, and its scene; its name in
/// `TransitionRegistry.all`; and a preset in `Presets/`.
public protocol Transition: Sendable {
    /// The name presets and the command line use (`transition.kind`).
    static var name: String { get }
    /// One line: what it draws, and where it comes from.
    static var summary: String { get }
    /// The machinery it is built on.
    static var family: TransitionFamily { get }
    /// Where its look comes from: a seed document, FFmpeg's xfade, a gl-transitions file.
    static var source: String { get }
    /// Its parameters, each declared once as a static `Parameter` of the type.
    static var parameters: [AnyParameter] { get }
    /// The parameters a `transition` section may give it: `parameters`, or, for a transition
    /// whose parameters come from a file the section names (a GLSL file's uniforms), those too.
    static func parameters(in section: ConfigNode) throws -> [AnyParameter]
    /// Lines `segue transitions show` prints after its parameters (the values a parameter
    /// names, each with its meaning); none for most.
    static var notes: [String] { get }
    /// Whether it joins two pages as one cut of a story; false for a transition that
    /// builds screens of its own (a grid tour, a cube of all the pages).
    static var joinsTwoPages: Bool { get }

    /// The parameters' values.
    var values: ParameterValues { get }
    init(_ values: ParameterValues)

    /// How many still screens a video of `pages` pages moves through (no layers built).
    func screenCount(pages: Int) -> Int
    /// Still screen `index`, built from one full-screen page per input.
    func screen(_ index: Int, pages: [Layer], bounds: Rect) -> Layer
    /// The scene of transition `step`, from screen `step` to screen `step + 1`, at
    /// `progress` (0...1, beyond it for a curve that overshoots). At progress 0 it shows
    /// exactly screen `step`; at 1 exactly screen `step + 1`.
    func scene(step: Int, progress: Double, pages: [Layer], bounds: Rect) -> Layer
    /// The scene of one cut of a story between two pages, at `progress`; only for a
    /// transition that `joinsTwoPages`.
    func cut(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer
    /// Seconds screen `index` holds still, given the preset's `hold`.
    func hold(screen index: Int, base: Double) -> Double
    /// Seconds of transition `step`, given the preset's `transition.duration`.
    func duration(step: Int, base: Double) -> Double
    /// The progress transition `step` is drawn at, `linear` seconds-fraction into it.
    func progress(step: Int, linear: Double, curve: TimingCurve) -> Double
    /// How far its pixels move per unit of progress beyond its layers' own motion, for motion
    /// blur's sample count on a canvas of `bounds` (`MotionBlur`): its family's unless it says.
    func motionBound(bounds: Rect) -> MotionBound
    /// The motion blur it is drawn with unless its cut sets `motionBlur`: a camera move's own
    /// (a whip pan's streaks); nil for most.
    var ownMotionBlur: MotionBlur? { get }
}

extension Transition {
    /// The transition with every parameter at its default.
    public init() { self.init(ParameterValues()) }

    /// The same transition with one parameter set.
    public func with<Value>(_ parameter: Parameter<Value>, _ value: Value) -> Self {
        var values = self.values
        values[parameter] = value
        return Self(values)
    }

    public static var joinsTwoPages: Bool { true }
    public static var notes: [String] { [] }
    public static func parameters(in section: ConfigNode) throws -> [AnyParameter] { parameters }
    public func cut(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer {
        scene(step: 0, progress: progress, pages: [from, to], bounds: bounds)
    }
    public func hold(screen index: Int, base: Double) -> Double { base }
    public func duration(step: Int, base: Double) -> Double { base }
    public func progress(step: Int, linear: Double, curve: TimingCurve) -> Double { curve(linear) }
    public func motionBound(bounds: Rect) -> MotionBound { Self.family.motionBound(bounds: bounds) }
    public var ownMotionBlur: MotionBlur? { nil }
}

/// The machinery a transition is built on; members of a family share it, so that each is a
/// short file of its own math.
public enum TransitionFamily: String, CaseIterable, Sendable {
    /// Layer trees in 3D, drawn by the compositor: cubes, flips, folds, slides, zooms, fades.
    case pages
    /// Coverage from a shape or a matte: wipes, circles, slices.
    case masks
    /// Each pixel taken from the two pictures at displaced places: squeezes, ripples, swirls.
    case displacements
    /// A colour function of the two pictures' pixels: fades through a colour, burns, dissolves.
    case mixes
    /// A GLSL program of the user's (or gl-transitions'), run by Mesa's llvmpipe on the CPU.
    case shaders
    /// A clip over a switch of the pages: stingers.
    case stingers

    /// What a member moves, unless it says: pages and mixes only as their layers do (mixes'
    /// pixels stay where they are); a mask's edge or a displacement may cross the canvas's
    /// diagonal; a shader cannot say, so it takes a fixed count.
    func motionBound(bounds: Rect) -> MotionBound {
        switch self {
        case .pages, .mixes, .stingers: return .layers
        case .masks, .displacements: return .points((bounds.width * bounds.width + bounds.height * bounds.height).squareRoot())
        case .shaders: return .samples(16)
        }
    }
}

/// A transition between two neighbouring pages, the screens being the pages themselves.
public protocol PageTransition: Transition {
    /// The scene between `from` and `to`, both laid out to fill `bounds` (the canvas in points).
    func scene(from: Layer, to: Layer, progress: Double, bounds: Rect) -> Layer
}

extension PageTransition {
    public func screenCount(pages: Int) -> Int { pages }
    public func screen(_ index: Int, pages: [Layer], bounds: Rect) -> Layer { pages[index] }
    public func scene(step: Int, progress: Double, pages: [Layer], bounds: Rect) -> Layer {
        scene(from: pages[step], to: pages[step + 1], progress: progress, bounds: bounds)
    }
}

extension Layer {
    /// A root layer covering `bounds` with `sublayers` in it, as a window's root view.
    public static func root(_ bounds: Rect, _ sublayers: [Layer]) -> Layer {
        var root = Layer(frame: bounds)
        root.sublayers = sublayers
        return root
    }
}

/// What opens the files transitions draw from, for a canvas's size: the media room's
/// (`MediaFiles`), so that a transition says which files it needs without reading them.
public protocol TransitionFiles: Sendable {
    /// A luma wipe's matte picture or clip at `path`, fitted to the canvas (`fill`: cropped
    /// to cover it, or stretched), light and dark swapped when `invert`.
    func matte(_ path: String, fill: Bool, invert: Bool, width: Int, height: Int, limits: Limits) throws -> any MatteSupply
    /// A GLSL file in gl-transitions' format, compiled for the canvas.
    func program(_ path: String, width: Int, height: Int) throws -> any GLSLSupply
}

/// A transition that draws from files (a luma wipe's matte, a GLSL file): they are opened
/// before the render, so that a file that is missing or does not compile is a problem
/// before the first frame, not in the middle of the video.
public protocol FileTransition: Transition {
    /// This transition with its files opened by `files` for a `width` x `height` canvas;
    /// throws what is wrong with them (an `ExportError`).
    func opening(_ files: any TransitionFiles, width: Int, height: Int, limits: Limits) throws -> Self
}
