import CSegueKernels
import Foundation

/// A luma wipe, as MLT's `luma` transition (Kdenlive's and Shotcut's wipes) has it: the
/// incoming page shows first where a grey matte is darkest, the edge moving through the
/// matte's levels as the transition goes on, softened over a share of its range. The matte
/// is any picture (8 or 16 bits of grey, or a colour picture's luma), a clip (its frames in
/// step with the transition), or a shape Segue draws at the canvas's size (`MatteShape`).
///
/// Where MLT works in yuv422 at 8 bits and two-pixel steps, the matte here is fitted to the
/// canvas in floating point and kept in 16 bits, and the edge is never harder than one
/// 8-bit level: a slow wipe over an 8-bit gradient moves in steps finer than its levels.
public struct Luma: PixelTransition, FileTransition {
    public enum Fit: String, CaseIterable, Sendable { case fill, stretch }
    public enum Axis: String, CaseIterable, Sendable { case horizontal, vertical }

    public static let name = "luma"
    public static let summary = "A wipe through a grey matte's levels, darkest first: any picture or clip, or a shape Segue draws (MLT's luma wipes)."
    public static let family = TransitionFamily.masks
    public static let source = "MLT's luma transition (Kdenlive, Shotcut); Segue's own mattes"
    public static let matte = Parameter.text("matte", default: MatteShape.clock.rawValue,
                                             expected: "a built-in matte (\(MatteShape.allCases.map(\.rawValue).joined(separator: ", "))) or a picture or clip file",
                                             "The matte: a built-in one's name, or a picture or clip (relative to the file that names it). A picture's levels are stretched once it is fitted to the canvas (the darkest pixel it shows goes first, the lightest last); a clip's frames are taken as they are.",
                                             check: Luma.problem)
    public static let softness = Parameter.number("softness", default: 0.1, in: 0...1, "The share of the matte's range the edge is blended over (0: a hard edge, anti-aliased).")
    public static let invert = Parameter.flag("invert", default: false, "Light parts first instead of dark ones.")
    public static let reverse = Parameter.flag("reverse", default: false, "Runs the wipe backwards (a clip matte plays from its end).")
    public static let fit = Parameter.choice("fit", default: Fit.fill, "How a matte picture or clip covers the canvas: fill crops it to cover, stretch distorts.")
    public static let count = Parameter.integer("count", default: 8, in: 1...512, "Bars, slats, squares across or hands of the bars, blinds, checkerboard, blocks and radial mattes.")
    public static let turns = Parameter.number("turns", default: 3, in: 0.5...64, "The spiral matte's turns.")
    public static let seed = Parameter.integer("seed", default: 1, in: 0...Int(Int32.max), "The blocks matte's random order.")
    public static let axis = Parameter.choice("axis", default: Axis.horizontal, "The bars' and blinds' direction: horizontal or vertical.")
    public static let parameters = [matte.erased, softness.erased, invert.erased, reverse.erased, fit.erased, count.erased, turns.erased,
                                    seed.erased, axis.erased]

    /// Segue's own mattes, one a line.
    public static var notes: [String] {
        let width = MatteShape.allCases.map(\.rawValue.count).max()!
        return ["mattes drawn by Segue (matte: NAME):"]
            + MatteShape.allCases.map { "  " + $0.rawValue.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.summary }
    }

    public let values: ParameterValues
    /// What gives the matte of a picture or clip at the canvas's size, opened by the media
    /// room before the render (`opening`); nil for Segue's own mattes, drawn here.
    public private(set) var supply: (any MatteSupply)?

    public init(_ values: ParameterValues) {
        self.values = values
        supply = nil
    }

    public func opening(_ files: any TransitionFiles, width: Int, height: Int, limits: Limits) throws -> Luma {
        guard case let .file(path) = source else { return self }
        var opened = self
        opened.supply = try files.matte(path, fill: fills, invert: inverts, width: width, height: height, limits: limits)
        return opened
    }

    /// What the matte is made from.
    enum Source: Hashable { case builtIn(MatteShape), file(String) }

    var source: Source {
        let name = values[Self.matte]
        return MatteShape(rawValue: name.lowercased()).map { .builtIn($0) } ?? .file(name)
    }

    /// Whether a matte picture or clip is cropped to cover the canvas (or stretched).
    var fills: Bool { values[Self.fit] == .fill }
    /// Whether the matte's levels are turned over: a picture's wipe backwards is its
    /// negative's wipe forwards, with the same edge.
    var inverts: Bool { values[Self.invert] != values[Self.reverse] }

    /// What is wrong with `matte` as a `matte` value, if anything: a built-in matte's name, or a
    /// file that exists (its content is read before the render, by `Job.problems`).
    static func problem(_ matte: String) -> String? {
        if MatteShape(rawValue: matte.lowercased()) != nil { return nil }
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: matte, isDirectory: &isFolder) {
            return "a built-in matte (\(MatteShape.allCases.map(\.rawValue).joined(separator: ", "))) or a picture or clip that exists: there is no such file"
        }
        return isFolder.boolValue ? "a built-in matte or a picture or clip file, not a folder" : nil
    }

    /// The matte on a `width` x `height` canvas at `progress`: Segue's own drawn (once for
    /// each size), a file's from its supply; nil for a file's not prepared.
    func matte(progress: Double, width: Int, height: Int) -> Matte? {
        let p = min(max(progress, 0), 1)
        switch source {
        case let .builtIn(shape):
            let key = DrawnMattes.Key(shape: shape, count: values[Self.count], turns: values[Self.turns], seed: values[Self.seed],
                                      axis: values[Self.axis], invert: inverts, width: width, height: height)
            if let found = Luma.drawn.withLock({ $0.mattes[key] }) { return found }
            let matte = Matte.levels(shape.levels(width: width, height: height, values), width: width, height: height,
                                     stretch: true, invert: inverts)
            Luma.drawn.withLock { $0.keep(key, matte) }
            return matte
        case .file:
            return supply?.matte(at: values[Self.reverse] ? 1 - p : p)
        }
    }

    /// Segue's mattes drawn so far, the most recent few kept.
    private static let drawn = Locked(DrawnMattes())

    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let p = min(max(progress, 0), 1)
        // A file's matte is read before the render begins (`Job.problems`); without it, a fade.
        guard let matte = matte(progress: p, width: width, height: height) else {
            return { y, pages, out in pages.mix(y, into: out, constant: Float(p)) }
        }
        // The edge at p (1 + s) of the range, the ramp s wide: the whole ramp has passed at p = 1.
        let s = max(values[Self.softness], 1.0 / 256)
        let ramp = Int32((s * 65535).rounded()), edge = Int32((p * (1 + s) * 65535).rounded())
        let scale = Int32((256 * 65536 / Double(ramp)).rounded())
        return { y, pages, out in
            matte.values.withUnsafeBufferPointer { m in
                segue_mix_luma(out, pages.a(y), pages.b(y), m.baseAddress! + y * width, edge, ramp, scale, Int32(width))
            }
        }
    }
}

/// What gives a luma wipe's matte from a file at `fraction` (0...1) of the transition: a
/// picture's, the same at every time; a clip's frame then.
public protocol MatteSupply: Sendable {
    func matte(at fraction: Double) -> Matte?
}

/// Segue's mattes drawn at canvas sizes, kept by shape, what the shapes read and size (not
/// the edge's softness, which cuts of one matte may vary).
struct DrawnMattes {
    struct Key: Hashable {
        let shape: MatteShape
        let count: Int, turns: Double, seed: Int
        let axis: Luma.Axis
        let invert: Bool
        let width: Int, height: Int
    }
    var mattes: [Key: Matte] = [:]
    var order: [Key] = []

    mutating func keep(_ key: Key, _ matte: Matte) {
        guard mattes[key] == nil else { return }
        mattes[key] = matte
        order.append(key)
        if order.count > 16 { mattes[order.removeFirst()] = nil }
    }
}

/// A luma wipe's matte at a canvas's size: one value a pixel, 0...65535, rows packed. Where it
/// is darker, the incoming page shows first.
public final class Matte: Sendable {
    public let width: Int
    public let height: Int
    public let values: [UInt16]

    init(width: Int, height: Int, values: [UInt16]) {
        precondition(values.count == width * height)
        self.width = width
        self.height = height
        self.values = values
    }

    /// `levels` (0...1 each, as many as the canvas has pixels) stretched over the whole range:
    /// the darkest to 0, the lightest to 65535 (`stretch`), then turned over when `invert`.
    static func levels(_ levels: [Float], width: Int, height: Int, stretch: Bool, invert: Bool) -> Matte {
        var low: Float = stretch ? .infinity : 0, high: Float = stretch ? -.infinity : 1
        if stretch { for v in levels { low = min(low, v); high = max(high, v) } }
        let span = high - low
        let scale: Float = span > 0 ? 65535 / span : 0
        let values = levels.map { level -> UInt16 in
            let v = min(max((level - low) * scale, 0), 65535)
            return UInt16(invert ? 65535 - v + 0.5 : v + 0.5)
        }
        return Matte(width: width, height: height, values: values)
    }
}

