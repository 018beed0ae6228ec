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

    @inline(__always) public func weight(_ p: SIMD2<Float>, _ k: Frame) -> Float {
        // The square's corner: floor(size p), as the file has it.
        let i = GLSL.floor(k.size.x * p.x), j = GLSL.floor(k.size.y * p.y)
        let r: Float
        if !k.squares.isEmpty, i >= 0, j >= 0, i < k.size.x, j < k.size.y {
            r = k.squares[Int(j) * k.columns + Int(i)]
        } else {
            r = GLSL.rand(vec2(i, j))
        }
        return GLSL.smoothstep(0, -k.smoothness, r - k.front)
    }

    /// A row crosses one row of squares: each square's weight is worked out once a row, and
    /// each column's square once a frame.
    public func rows(progress: Double, width: Int, height: Int) -> PixelRows {
        let k = frame(GLUniforms(progress: Float(progress), width: width, height: height)), h = Float(height)
        guard !k.squares.isEmpty else { return maskRows(progress: progress, width: width, height: height) }
        let rows = k.squares.count / k.columns
        @Sendable func square(_ position: Float, _ count: Int) -> Int { min(max(Int(GLSL.floor(position)), 0), count - 1) }
        let cells = GLFrame.columns(width).map { square(k.size.x * $0, k.columns) }
        return { y, pages, out in
            let first = square(k.size.y * (1 - (Float(y) + 0.5) / h), rows) * k.columns
            let weights = (0..<k.columns).map { GLSL.smoothstep(0, -k.smoothness, k.squares[first + $0] - k.front) }
            weights.withUnsafeBufferPointer { weights in
                cells.withUnsafeBufferPointer { cells in pages.mix(y, into: out) { x in weights[cells[x]] } }
            }
        }
    }
}
