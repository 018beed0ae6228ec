import Foundation

/// A transition ported from gl-transitions (github.com/gl-transitions/gl-transitions, MIT;
/// each port credits its file's authors): what a shader's `vec4 transition(vec2 uv)` gives
/// each pixel, worked out on the CPU over the two pages' pictures. Its name is `gl:` and the
/// file's (`gl:crosswarp`), read case-insensitively, and the file's name alone is another name
/// for it where no other transition has that name. Its parameters are the file's uniforms,
/// same names and defaults.
///
/// A port's math is written once: in Swift, per pixel, in one of the shapes of
/// `GLFastPaths.swift` (a mask, a mix, a warp, a sum), whose kernels in C sample and mix the
/// pages; or, where Swift's vectors are too narrow for it, in C alone, a row at a time
/// (`CSegueKernels/glwarps.c`, `glports.c`, `curl.c`, `zoom.c`), the port's Swift file then
/// only working out what a frame shares. The GLSL file run by llvmpipe is every port's
/// reference (`GLTransitionTests`), and each port's frames are pinned (`TransitionPinsTests`).
///
/// GL's conventions are kept: `uv` runs 0...1 across the canvas from its bottom left corner,
/// texel centres at half pixels; pages are sampled bilinearly, clamped at the edges, at 1/256
/// texel as the compositor samples; `ratio` is the canvas's width over its height. Colours are
/// premultiplied (the same as GL's for opaque pages) and the result is clamped and kept
/// premultiplied.
public protocol GLTransition: PixelTransition {
    /// The gl-transitions file's name, without `.glsl`.
    static var file: String { get }
    /// The file's authors, as its header names them.
    static var authors: String { get }
    /// The file's licence (MIT unless its header says otherwise).
    static var license: String { get }
}

extension GLTransition {
    public static var name: String { "gl:" + file }
    public static var license: String { "MIT" }
    public static var source: String { "gl-transitions \(file).glsl (\(authors), \(license))" }
}

typealias vec2 = SIMD2<Float>
typealias vec3 = SIMD3<Float>
typealias vec4 = SIMD4<Float>

/// Pixels as a shader sees them, and the numbers of a frame's columns.
enum GLFrame {
    /// A premultiplied RGBA pixel as four numbers 0...1.
    @inline(__always)
    static func color(_ p: UInt32) -> vec4 {
        vec4(Float(p & 255), Float(p >> 8 & 255), Float(p >> 16 & 255), Float(p >> 24)) * (1 / 255)
    }

    /// A shader's colour as a pixel: each channel clamped to 0...1 and rounded, as GL writes
    /// it; alpha at least each colour channel, so that the pixel stays premultiplied.
    /// (Lane by lane: SIMD4<UInt32>'s initializer from floats converts through the generic path,
    /// a call into the runtime for each lane.)
    @inline(__always)
    static func pixel(_ c: vec4) -> UInt32 {
        @inline(__always) func level(_ x: Float) -> UInt32 { UInt32(Int32(GLSL.clamp(x, 0, 1) * 255 + 0.5)) }
        let r = level(c.x), g = level(c.y), b = level(c.z)
        return r | g << 8 | b << 16 | max(level(c.w), max(r, max(g, b))) << 24
    }
}

/// GLSL's built-in functions the ports use, as GLSL defines them.
enum GLSL {
    static let pi: Float = 3.141592653589793

    @inline(__always) static func mix(_ a: Float, _ b: Float, _ t: Float) -> Float { a + (b - a) * t }
    @inline(__always) static func mix(_ a: vec4, _ b: vec4, _ t: Float) -> vec4 { a + (b - a) * t }
    @inline(__always) static func mix(_ a: vec3, _ b: vec3, _ t: Float) -> vec3 { a + (b - a) * t }
    @inline(__always) static func mix(_ a: vec2, _ b: vec2, _ t: Float) -> vec2 { a + (b - a) * t }
    @inline(__always) static func clamp(_ x: Float, _ low: Float, _ high: Float) -> Float { x >= low ? min(x, high) : low }
    /// 0 below `e0`, 1 above `e1` (or the other way round when e1 < e0), Hermite between.
    @inline(__always) static func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
        let t = clamp((x - e0) / (e1 - e0), 0, 1)
        return t * t * (3 - 2 * t)
    }
    @inline(__always) static func step(_ edge: Float, _ x: Float) -> Float { x < edge ? 0 : 1 }
    @inline(__always) static func fract(_ x: Float) -> Float { x - floor(x) }
    @inline(__always) static func fract(_ v: vec2) -> vec2 { vec2(fract(v.x), fract(v.y)) }
    /// GLSL's mod: x - y floor(x / y).
    @inline(__always) static func mod(_ x: Float, _ y: Float) -> Float { x - y * floor(x / y) }
    @inline(__always) static func sign(_ x: Float) -> Float { x > 0 ? 1 : x < 0 ? -1 : 0 }
    @inline(__always) static func length(_ v: vec2) -> Float { (v * v).sum().squareRoot() }
    @inline(__always) static func distance(_ a: vec2, _ b: vec2) -> Float { length(a - b) }
    @inline(__always) static func dot(_ a: vec2, _ b: vec2) -> Float { (a * b).sum() }
    /// Whether `p` lies strictly inside the unit square (gl-transitions' `inBounds`).
    @inline(__always) static func inside(_ p: vec2) -> Bool { p.x > 0 && p.y > 0 && p.x < 1 && p.y < 1 }
    /// The classic pseudo-random number of shaders: fract(sin(dot(co, (12.9898, 78.233))) × 43758.5453).
    @inline(__always) static func rand(_ co: vec2) -> Float { fract(sinf(dot(co, vec2(12.9898, 78.233))) * 43758.5453) }
}

extension Parameter where Value == [Double] {
    /// A vector uniform of GLSL (`vec2`, `vec3`): as many numbers as its default has.
    static func vector(_ key: String, default value: [Double], in range: ClosedRange<Double>, _ meaning: String) -> Parameter {
        .numbers(key, default: value, in: range, expected: "\(value.count) numbers", meaning) { $0.count == value.count }
    }
}

extension ParameterValues {
    /// A number uniform's value in single precision, as the shader has it.
    func float(_ parameter: Parameter<Double>) -> Float { Float(self[parameter]) }
    /// A vector uniform's value.
    func vector2(_ parameter: Parameter<[Double]>) -> vec2 { let v = self[parameter]; return vec2(Float(v[0]), Float(v[1])) }
    func vector3(_ parameter: Parameter<[Double]>) -> vec3 { let v = self[parameter]; return vec3(Float(v[0]), Float(v[1]), Float(v[2])) }
}
