import CSegueKernels
import Foundation
import Testing
@testable import Segue

/// The ports that add samples up over a floor (`GLSumWarp`: swap, doorway) and their kernel.
@Suite("gl-transitions' sums over a floor")
struct GLSumsTests {
    static let ports: [any GLSumWarp] = [
        GLSwap(), GLSwap().with(GLSwap.perspective, -0.7).with(GLSwap.reflection, 1).with(GLSwap.depth, 1.7),
        GLDoorway(), GLDoorway().with(GLDoorway.perspective, -1.5).with(GLDoorway.reflection, 0.9).with(GLDoorway.depth, 7),
    ]

    @Test("a port's sums for the kernel's prefetch (every stride-th column of a row ahead) are its row's sums at those columns, number for number",
          arguments: ports)
    func positionsAhead(port: any GLSumWarp) {
        func check<P: GLSumWarp>(_ port: P) -> Bool {
            let width = 241, height = 430, us = GLFrame.columns(width), w = Float(width), h = Float(height)
            let stride = Int(SEGUE_AHEAD_STRIDE), sparse = (width + stride - 1) / stride
            var known = false
            for progress: Float in [0.05, 0.3, 0.5, 0.71, 0.96] {
                let k = port.frame(GLUniforms(progress: progress, width: width, height: height))
                for y in Swift.stride(from: 0, to: height, by: 29) {
                    let v = 1 - (Float(y) + 0.5) / h
                    var rows = [Float](repeating: 7, count: 7 * width), ahead = [Float](repeating: -7, count: 7 * sparse)
                    rows.withUnsafeMutableBufferPointer { into in
                        us.withUnsafeBufferPointer { port.positions($0, v, k, width: w, height: h, into: into.baseAddress!) }
                    }
                    let written = ahead.withUnsafeMutableBufferPointer { port.positionsAhead(v, k, width: w, height: h, into: $0.baseAddress!) }
                    guard written else { continue }
                    known = true
                    let misses = (0..<7).flatMap { run in
                        (0..<sparse).filter { i in
                            let a = ahead[run * sparse + i], r = rows[run * width + i * stride]
                            return !(a == r || a.isNaN && r.isNaN)
                        }.map { "run \(run), column \($0 * stride)" }
                    }
                    #expect(misses.isEmpty, "\(P.name) at \(progress), row \(y): \(misses.prefix(4))")
                }
            }
            return known
        }
        let known = check(port)
        // swap says where its samples go; doorway leaves it to the kernel's guess.
        #expect(known == (port is GLSwap), "\(type(of: port).name): positions ahead \(known)")
    }

    /// Channel `shift` of the sum, written out: p wp + q wq + c wc over 256, rounded, at most 255.
    static func summed(_ p: UInt32, _ q: UInt32, _ c: UInt32, _ w: [UInt32], _ shift: UInt32) -> UInt32 {
        min(255, ((p >> shift & 255) * w[0] + (q >> shift & 255) * w[1] + (c >> shift & 255) * w[2] + 128) >> 8) << shift
    }

    /// A bilinear sample at texel position (x, y), clamped to the picture; nothing for NaN.
    static func sample(_ t: [UInt32], _ width: Int, _ height: Int, _ x: Float, _ y: Float) -> UInt32 {
        guard !x.isNaN, !y.isNaN else { return 0 }
        let cx = x > 0 ? min(x, Float(width - 1)) : 0, cy = y > 0 ? min(y, Float(height - 1)) : 0
        let X = Int(cx * 256 + 0.5), Y = Int(cy * 256 + 0.5), i = X >> 8, j = Y >> 8
        let i1 = min(i + 1, width - 1), j1 = min(j + 1, height - 1)
        return Texels.bilinear(t[j * width + i], t[j * width + i1], t[j1 * width + i], t[j1 * width + i1], X & 255, Y & 255)
    }

    @Test("the kernel's every pixel is the two samples and the floor added up, written out: where a run copies a page, reads one, or both")
    func kernel() {
        // 13 pixels past the last whole run of 64: a span that is not a multiple of 16.
        let width = 37, height = 23, count = 653, floor: UInt32 = 0xFF10_2030
        let a = GLAffineTests.pixels(width * height, seed: 5), b = GLAffineTests.pixels(width * height, seed: 6)
        var state: UInt32 = 99
        func random() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        // Runs of 64: a page copied (weights 1, 0, 0), only one page read, both, neither, mixed.
        var runs = [Float](repeating: 0, count: 7 * count)
        for i in 0..<count {
            let kind = i / 64 % 6
            let position = [random() * 44 - 3, random() * 30 - 3, random() * 44 - 3, random() * 30 - 3]
            let weights: [Float] = switch kind {
            case 0: [1, 0, 0]
            case 1: [0, 1, 0]
            case 2: [random(), 0, 1]
            case 3: [0, random() * 1.2, random()]
            case 4: [0, 0, 1]
            default: [random(), random(), i % 3 == 0 ? 1 : 0]
            }
            for (n, value) in (position + weights).enumerated() { runs[n * count + i] = value }
            if i % 29 == 0 { runs[count + i] = .nan }
        }
        var out = [UInt32](repeating: 0, count: count)
        segue_sum_warped(&out, a, b, Int32(width), Int32(height), runs, nil, floor, Int32(count))
        // The samples ahead are a hint to the cache only: anywhere, NaN, past the edges, the
        // same bytes.
        let sparse = (count + Int(SEGUE_AHEAD_STRIDE) - 1) / Int(SEGUE_AHEAD_STRIDE)
        let ahead = (0..<7 * sparse).map { $0 % 11 == 0 ? Float.nan : random() * 120 - 40 }
        var hinted = [UInt32](repeating: 1, count: count)
        segue_sum_warped(&hinted, a, b, Int32(width), Int32(height), runs, ahead, floor, Int32(count))
        #expect(hinted == out)
        var misses = 0
        for i in 0..<count {
            let w = (4..<7).map { UInt32(PagePictures.fixed(runs[$0 * count + i])) }
            let p = Self.sample(a, width, height, runs[i], runs[count + i]), q = Self.sample(b, width, height, runs[2 * count + i], runs[3 * count + i])
            let expected = [0, 8, 16, 24].reduce(UInt32(0)) { $0 | Self.summed(p, q, floor, w, $1) }
            misses += out[i] == expected ? 0 : 1
        }
        #expect(misses == 0, "\(misses) of \(count) pixels differ")
    }
}

/// The warp kernel (`segue_mix_warped`) reads only the texels its samples fall on: the same
/// bytes as four texels mixed every time.
@Suite("gl-transitions' warp kernel")
struct GLWarpKernelTests {
    @Test("every pixel is its two bilinear samples mixed, written out: in runs whose samples fall on texels' centres, on columns' centres, or anywhere")
    func kernel() {
        let width = 37, height = 23, count = 64 * 40 + 13, outside: UInt32 = 0xFF40_5060
        let a = GLAffineTests.pixels(width * height, seed: 7), b = GLAffineTests.pixels(width * height, seed: 8)
        var state: UInt32 = 17
        func random() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        func whole(_ limit: Int) -> Float { Float(Int(random() * Float(limit + 6)) - 3) }
        // Runs of 64, for each page: on texels' centres (past the edges too), on columns'
        // centres, anywhere, on columns' centres but for one pixel, on texels' centres but for
        // one pixel's row; each with weights 0, 1, between, or 0 and 1 in turn.
        var runs = [Float](repeating: 0, count: 5 * count)
        for i in 0..<count {
            let run = i / 64, kinds = [run % 5, (run / 5 + run) % 5]
            var position: [Float] = []
            for kind in kinds {
                var x = kind == 2 ? random() * 44 - 3 : whole(width), y = kind == 0 || kind == 4 ? whole(height) : random() * 30 - 3
                if kind == 3 && i % 64 == 40 { x += 0.25 }
                if kind == 4 && i % 64 == 50 { y += 0.5 }
                position += [x, y]
            }
            let weight: Float = [0, 1, random(), i % 2 == 0 ? 0 : 1][run / 10 % 4]
            for (n, value) in (position + [weight]).enumerated() { runs[n * count + i] = value }
            if i % 31 == 0 { runs[count + i] = .nan }
        }
        var out = [UInt32](repeating: 0, count: count)
        runs.withUnsafeBufferPointer { r in
            let p = r.baseAddress!
            segue_mix_warped(&out, a, b, Int32(width), Int32(height), p, p + count, p + 2 * count, p + 3 * count, p + 4 * count, outside,
                             Int32(count))
        }
        var misses = 0
        for i in 0..<count {
            func sample(_ t: [UInt32], _ page: Int) -> UInt32 {
                let x = runs[2 * page * count + i], y = runs[(2 * page + 1) * count + i]
                return x.isNaN || y.isNaN ? outside : GLSumsTests.sample(t, width, height, x, y)
            }
            let expected = WarpKernelTests.mix(sample(a, 0), sample(b, 1), UInt32(PagePictures.fixed(runs[4 * count + i])))
            misses += out[i] == expected ? 0 : 1
        }
        #expect(misses == 0, "\(misses) of \(count) pixels differ")

        // One picture as both pages (mixed beforehand) at the same points: its samples.
        var one = [UInt32](repeating: 0, count: count)
        runs.withUnsafeBufferPointer { r in
            let p = r.baseAddress!
            segue_mix_warped(&one, a, a, Int32(width), Int32(height), p, p + count, p, p + count, p + 4 * count, outside, Int32(count))
        }
        let alone = (0..<count).filter { i in
            let x = runs[i], y = runs[count + i]
            return one[i] != (x.isNaN || y.isNaN ? outside : GLSumsTests.sample(a, width, height, x, y))
        }
        #expect(alone.isEmpty, "\(alone.count) of \(count) pixels of the one picture differ")
    }
}

extension GLWarpKernelTests {
    @Test("runs whose samples are a row's texels one after another are read as they lie, and any run that is not falls back to sampling")
    func texelRuns() {
        let width = 150, height = 20, outside: UInt32 = 0xFF40_5060
        let a = GLAffineTests.pixels(width * height, seed: 21), b = GLAffineTests.pixels(width * height, seed: 22)
        // Runs of 64 on the incoming page at row 5 from column 10 (the outgoing page anywhere):
        // one after another; one pixel a column on; one a row down; one NaN; one past the right
        // edge (clamped onto the last column); and a last run of 13.
        let runs = 6, count = 64 * (runs - 1) + 13
        var p = [Float](repeating: 0, count: 5 * count)
        for i in 0..<count {
            let run = i / 64, n = i % 64
            var x = Float(10 + n), y: Float = 5
            if run == 1 && n == 33 { x += 1 }
            if run == 2 && n == 7 { y += 1 }
            if run == 3 && n == 50 { x = .nan }
            if run == 4 { x = Float(100 + n) }
            p[i] = Float(i % 140) * 1.07 - 2
            p[count + i] = Float(i % 19) * 0.93
            p[2 * count + i] = x
            p[3 * count + i] = y
            p[4 * count + i] = i % 3 == 0 ? 1 : 0.4
        }
        var out = [UInt32](repeating: 0, count: count)
        p.withUnsafeBufferPointer { r in
            let q = r.baseAddress!
            segue_mix_warped(&out, a, b, Int32(width), Int32(height), q, q + count, q + 2 * count, q + 3 * count, q + 4 * count, outside,
                             Int32(count))
        }
        func sample(_ t: [UInt32], _ x: Float, _ y: Float) -> UInt32 {
            x.isNaN || y.isNaN ? outside : GLSumsTests.sample(t, width, height, x, y)
        }
        let differ = (0..<count).filter { i in
            let from = sample(a, p[i], p[count + i]), to = sample(b, p[2 * count + i], p[3 * count + i])
            return out[i] != WarpKernelTests.mix(from, to, UInt32(PagePictures.fixed(p[4 * count + i])))
        }
        #expect(differ.isEmpty, "pixels \(differ.prefix(8)) of \(count) differ")
    }
}

/// The ports that read the pages mixed once a frame (`premix`) against the same rows from the
/// two pages.
@Suite("gl-transitions' ports that read the pages mixed")
struct GLPremixTests {
    @Test("a port that reads the pages mixed gives, from the pages mixed once, its rows from the two pages within two levels",
          arguments: [GLSwirl() as any GLTransition, GLKaleidoscope(), GLCrossZoom(), GLFilmBurn(), GLLinearBlur(), GLRotateScaleFade()])
    func premixed(port: any GLTransition) throws {
        let width = 90, height = 160
        let a = GLAffineTests.pixels(width * height, seed: 21), b = GLAffineTests.pixels(width * height, seed: 22)
        var worst = 0, total = 0, used = 0
        let mixed = FrameBuffer(width: width, height: height)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                do {
                    let raw = PagePictures(a: a.baseAddress!, b: b.baseAddress!, width: width, height: height)
                    for progress in [0.3, 0.5, 0.77] {
                        guard let weight = port.premix(progress: progress) else { return }
                        let (pages, _) = raw.premixed(weight, threads: 3) { mixed }
                        used += pages.a == pages.b ? 1 : 0
                        let rows = port.rows(progress: progress, width: width, height: height)
                        var once = [UInt32](repeating: 0, count: width), twice = once
                        for y in 0..<height {
                            rows(y, pages, &once)
                            rows(y, raw, &twice)
                            for (p, q) in zip(once, twice) {
                                for shift: UInt32 in [0, 8, 16, 24] {
                                    let d = abs(Int(p >> shift & 255) - Int(q >> shift & 255))
                                    worst = max(worst, d)
                                    total += d
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(used == 3, "\(type(of: port).name): the pages were not handed mixed")
        #expect(worst <= 2, "\(type(of: port).name): a channel \(worst) levels off")
        #expect(Double(total) / Double(3 * 4 * width * height) < 0.5, "\(type(of: port).name): \(total) levels off in all")
    }
}
