/// Band-sized buffers one worker draws with (its scratch band, and a layer group's band at
/// each depth of nesting), made as first needed and kept from frame to frame: allocated a
/// band or a frame at a time and freed, they had glibc give their pages back to the kernel
/// and fault them in again, each give-back a TLB shootdown to the other core.
final class BandBuffers: @unchecked Sendable {   // used by one worker at a time
    let capacity: Int
    private var buffers: [UnsafeMutablePointer<UInt32>] = []

    init(capacity: Int) { self.capacity = capacity }

    func buffer(_ depth: Int) -> UnsafeMutablePointer<UInt32> {
        while buffers.count <= depth { buffers.append(.allocate(capacity: capacity)) }
        return buffers[depth]
    }

    deinit { for buffer in buffers { buffer.deallocate() } }
}

/// A per-pixel transition's page picture and the items drawn in it.
struct KeptPage: Sendable {
    let picture: FrameBuffer
    let drawing: [DrawItem]
}

/// The `BandBuffers` of a compositor's workers between frames: each worker takes a set for
/// a frame and gives it back after.
final class SpareBuffers: Sendable {
    private let free = Locked<[BandBuffers]>([])

    func take(capacity: Int) -> BandBuffers {
        free.withLock { free in
            free.removeAll { $0.capacity != capacity }   // made for another canvas width
            return free.popLast()
        } ?? BandBuffers(capacity: capacity)
    }

    func give(_ buffers: BandBuffers) { free.withLock { $0.append(buffers) } }

    /// The per-pixel transitions' page pictures kept from frame to frame: allocated for each
    /// frame, 8 MB each at 1080x1920, their pages faulted in anew, they took most of a frame's
    /// time. What a page held before is drawn over wholly (its background too), unless it
    /// holds the same drawing: then it is not drawn again (a still page's copy was a third of
    /// a wipe's time). A picture is taken by one frame at a time.
    private let pages = Locked<[KeptPage]>([])

    /// A picture for `drawing`, and whether it already holds it.
    func page(width: Int, height: Int, drawing: [DrawItem]) -> (FrameBuffer, drawn: Bool) {
        let kept = pages.withLock { pages -> (FrameBuffer, drawn: Bool)? in
            pages.removeAll { $0.picture.width != width || $0.picture.height != height }
            if let same = pages.lastIndex(where: { DrawItem.drawSame($0.drawing, drawing) }) {
                return (pages.remove(at: same).picture, true)
            }
            return pages.popLast().map { ($0.picture, false) }
        }
        return kept ?? (FrameBuffer(width: width, height: height), false)
    }

    /// Pictures of the pages mixed (`PixelMixer.premix`), kept from frame to frame as the
    /// pages are (`PageMix.swift`).
    let mixes = Locked<[FrameBuffer]>([])
    /// A blurred frame's channel sums (`MeanFrames.swift`), kept from frame to frame.
    let sums = Locked<[ChannelSums]>([])

    func give(pages given: [KeptPage]) {
        pages.withLock { pages in
            pages.append(contentsOf: given)
            if pages.count > 4 { pages.removeFirst(pages.count - 4) }
        }
    }
}
