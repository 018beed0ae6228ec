import Testing
@testable import Segue

@Suite("Frame rates as exact fractions")
struct FrameRateTests {
    @Test("29.97, 23.976, 59.94 and 119.88 are the NTSC fractions; other decimals and fractions are exact; nonsense is refused")
    func parsing() {
        let cases: [(String, Int, Int)] = [("30", 30, 1), ("29.97", 30000, 1001), ("23.976", 24000, 1001), ("23.98", 24000, 1001),
                                           ("59.94", 60000, 1001), ("119.88", 120000, 1001), ("30000/1001", 30000, 1001),
                                           ("60/2", 30, 1), ("12.5", 25, 2), ("25.0", 25, 1), ("24", 24, 1)]
        for (text, n, d) in cases {
            let rate = FrameRate(parsing: text)
            #expect(rate?.numerator == n && rate?.denominator == d, "\(text): \(String(describing: rate))")
        }
        for bad in ["", "fast", "30/0", "0/1", "-30", "29.9.7", "1/", "2e1", "29.", ".5"] {
            #expect(FrameRate(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("frame i of 30000/1001 is at i × 1001 / 30000 s, a whole rate's times are what they always were, and a timeline counts its frames in the fraction")
    func times() {
        let ntsc = FrameRate(numerator: 30000, denominator: 1001)!
        #expect(ntsc.time(ofFrame: 17999) == 17999.0 * 1001 / 30000 && ntsc.description == "30000/1001" && ntsc.perSecond == 30)
        let thirty: FrameRate = 30
        #expect((0..<1000).allSatisfy { thirty.time(ofFrame: $0) == Double($0) / 30 })
        let timeline = Timeline(holds: [600.6], fps: ntsc, durations: []) { _, t in t }
        #expect(timeline.frameCount == 18000)
    }
}
