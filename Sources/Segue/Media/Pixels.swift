// Pixel arithmetic on packed premultiplied RGBA (red in the low byte), two channels at a
// time in one 32-bit word: red and blue in the 0x00FF00FF lanes, green and alpha above.
// All of it is integer arithmetic, so every machine computes the same bytes.

/// `p` scaled by `k / 256`, with `k` from 0 to 256, rounded.
@inline(__always)
func scalePixel(_ p: UInt32, _ k: UInt32) -> UInt32 {
    let rb = (((p & 0x00FF00FF) &* k &+ 0x00800080) >> 8) & 0x00FF00FF
    let ag = (((p >> 8) & 0x00FF00FF) &* k &+ 0x00800080) & 0xFF00FF00
    return rb | ag
}

/// `p` and `q` mixed as `p * (256 - f) / 256 + q * f / 256`, with `f` from 0 to 256, rounded.
@inline(__always)
func lerpPixel(_ p: UInt32, _ q: UInt32, _ f: UInt32) -> UInt32 {
    let g = 256 &- f
    let rb = (((p & 0x00FF00FF) &* g &+ (q & 0x00FF00FF) &* f &+ 0x00800080) >> 8) & 0x00FF00FF
    let ag = (((p >> 8) & 0x00FF00FF) &* g &+ ((q >> 8) & 0x00FF00FF) &* f &+ 0x00800080) & 0xFF00FF00
    return rb | ag
}

/// Source-over of premultiplied pixels: `src + dst * (255 - srcAlpha) / 255`, rounded.
@inline(__always)
func blendPixel(_ src: UInt32, over dst: UInt32) -> UInt32 {
    let a = src >> 24
    if a == 255 { return src }
    if a == 0 { return dst }
    let inv = 255 &- a
    var rb = (dst & 0x00FF00FF) &* inv &+ 0x00800080
    rb = ((rb &+ ((rb >> 8) & 0x00FF00FF)) >> 8) & 0x00FF00FF
    var ag = ((dst >> 8) & 0x00FF00FF) &* inv &+ 0x00800080
    ag = (ag &+ ((ag >> 8) & 0x00FF00FF)) & 0xFF00FF00
    return src &+ (rb | ag)
}
