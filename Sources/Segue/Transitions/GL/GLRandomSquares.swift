/// gl-transitions' `randomsquares` by gre (MIT): a grid of squares, each turning over at a
/// pseudo-random moment (the shaders' sine hash). Ported from randomsquares.glsl.
public struct GLRandomSquares: GLMask {
    public static let file = "randomsquares", authors = "gre"
    public static let summary = "Squares of a grid turn to the next picture in random order (gl-transitions randomsquares)."
    public static let family = TransitionFamily.masks
    public static let size = Parameter.numbers("size", default: [10, 10], in: 1...10000, expected: "2 whole numbers",
                                               "The grid's columns and rows.") { $0.count == 2 && $0.allSatisfy { $0.rounded() == $0 } }
    public static let smoothness = Parameter.number("smoothness", default: 0.5, in: 0...10, "How gradually each square turns.")
    public static let parameters = [size.erased, smoothness.erased]

    public let values: ParameterValues
    public init(_ values: ParameterValues) { self.values = values }

    public struct Frame: Sendable {
        let size: SIMD2<Float>, smoothness: Float, front: Float
        /// Each square's random number, row by row from the bottom, drawn once a frame (none
        /// for a grid of more than 65536 squares: those are drawn for each pixel).
        let squares: [Float]
        let columns: Int
    }

    public func frame(_ f: GLUniforms) -> Frame {
        let smoothness = values.float(Self.smoothness), size = values.vector2(Self.size)
        let columns = Int(size.x), rows = Int(size.y), drawn = columns * rows <= 65536
        let squares = drawn ? (0..<rows).flatMap { j in (0..<columns).map { i in GLSL.rand(vec2(Float(i), Float(j))) } } : []
        return Frame(size: size, smoothness: smoothness, front: f.progress * (1 + smoothness), squares: squares, columns: columns)
    }

    /// The file's weight, its square's random number drawn for the pixel (`rows` takes it from
    /// the frame's table instead).
    @inline(__always) public func weight(_ p: SIMD2<Float>, _ k: Frame) -> Float {
        GLSL.smoothstep(0, -k.smoothness, GLSL.rand(vec2(GLSL.floor(k.size.x * p.x), GLSL.floor(k.size.y * p.y))) - k.front)
    }

    /// A row crosses one row of squares: each column's square is found once a frame, its random
    /// number in the frame's table, and each square's weight worked out once a row where there
    /// are no more squares across than pixels (else once a pixel, so a row costs its width).
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), h = Float(height)
        guard !k.squares.isEmpty else { return maskRows(progress: progress, width: width, height: height) }
        let rows = k.squares.count / k.columns
        @Sendable func square(_ position: Float, _ count: Int) -> Int { min(max(Int(GLSL.floor(position)), 0), count - 1) }
        let cells = GLFrame.columns(width).map { square(k.size.x * $0, k.columns) }
        return { y, pages, out in
            let first = square(k.size.y * (1 - (Float(y) + 0.5) / h), rows) * k.columns
            cells.withUnsafeBufferPointer { cells in
                if k.columns <= width {
                    let weights = (0..<k.columns).map { GLSL.smoothstep(0, -k.smoothness, k.squares[first + $0] - k.front) }
                    weights.withUnsafeBufferPointer { weights in pages.mix(y, into: out) { x in weights[cells[x]] } }
                } else {
                    k.squares.withUnsafeBufferPointer { squares in
                        pages.mix(y, into: out) { x in GLSL.smoothstep(0, -k.smoothness, squares[first + cells[x]] - k.front) }
                    }
                }
            }
        }
    }
}
