/// Paint order for the quads of a 3D group, which Core Animation leaves to the order of the
/// layers (it has no depth buffer). Quads are planar and convex; in the group's space after
/// the perspective divide every line of sight runs along z, and larger z is nearer. A quad
/// must be painted before another it overlaps on screen when it lies wholly behind the
/// other's plane, or the other lies wholly in front of its plane (Newell's tests). Quads
/// with no such constraint, or caught in a cycle (intersecting quads), go farthest center
/// first; coplanar quads keep layer order.
func depthOrdered(_ items: [DrawItem]) -> [DrawItem] {
    let n = items.count
    guard n > 1 else { return items }
    let solids = items.map { $0.groupCorners ?? [] }
    let centers = solids.map { $0.isEmpty ? 0 : $0.reduce(0) { $0 + $1.z } / Double($0.count) }

    // before[i] holds the quads that must be painted before quad i.
    var before = [Set<Int>](repeating: [], count: n)
    for i in 0..<n {
        for j in (i + 1)..<n where overlapOnScreen(solids[i], solids[j]) {
            switch order(solids[i], solids[j]) {
            case .first: before[j].insert(i)
            case .second: before[i].insert(j)
            case .either: break
            }
        }
    }

    var placed = [Bool](repeating: false, count: n)
    var result: [DrawItem] = []
    let byDepth = (0..<n).sorted { (centers[$0], $0) < (centers[$1], $1) }
    for _ in 0..<n {
        // The farthest quad whose constraints are met; in a cycle, the farthest left.
        let next = byDepth.first { !placed[$0] && before[$0].allSatisfy { placed[$0] } } ?? byDepth.first { !placed[$0] }!
        placed[next] = true
        result.append(items[next])
    }
    return result
}

private enum PaintOrder { case first, second, either }

/// Which of two quads must be painted first, if their planes say.
private func order(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> PaintOrder {
    let aToB = side(of: a, plane: b), bToA = side(of: b, plane: a)
    let aFirst = aToB == -1 || bToA == 1       // a behind b's plane, or b in front of a's
    let bFirst = aToB == 1 || bToA == -1
    if aFirst && !bFirst { return .first }
    if bFirst && !aFirst { return .second }
    return .either                              // coplanar, or the tests disagree
}

/// -1 when every point is behind (or on) the plane of `quad`, +1 when every point is in front
/// of (or on) it, 0 when all are on it, and 2 when the points straddle it.
private func side(of points: [SIMD3<Double>], plane quad: [SIMD3<Double>]) -> Int {
    guard quad.count >= 3 else { return 2 }
    // The plane's normal: the longest cross product of two chords from the first corner
    // (the corners of a polygon, or of a group's coplanar polygons, in any order).
    var normal = SIMD3<Double>(repeating: 0)
    var best = 0.0
    for i in 1..<quad.count {
        for j in (i + 1)..<max(i + 1, quad.count) {
            let n = cross(quad[i] - quad[0], quad[j] - quad[0])
            let size = (n * n).sum()
            if size > best { best = size; normal = n }
        }
    }
    let length = best.squareRoot()
    guard length > 1e-12, abs(normal.z) > 1e-9 * length else { return 2 }     // seen edge-on: no verdict
    if normal.z < 0 { normal = -normal }                                     // point it at the viewer
    normal /= length
    let tolerance = 1e-7 * max(1, quad.map { abs($0.x) + abs($0.y) + abs($0.z) }.max()!)
    var behind = false, front = false
    for p in points {
        let d = ((p - quad[0]) * normal).sum()
        if d < -tolerance { behind = true } else if d > tolerance { front = true }
    }
    switch (behind, front) {
    case (false, false): return 0
    case (true, false): return -1
    case (false, true): return 1
    default: return 2
    }
}

private func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// Whether the screen boxes of two quads overlap (a cheap, conservative test).
private func overlapOnScreen(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> Bool {
    guard !a.isEmpty, !b.isEmpty else { return false }
    let ax = a.map(\.x), ay = a.map(\.y), bx = b.map(\.x), by = b.map(\.y)
    return ax.min()! < bx.max()! && bx.min()! < ax.max()! && ay.min()! < by.max()! && by.min()! < ay.max()!
}
