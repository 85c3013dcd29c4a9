import XCTest
import TiltboardCore

final class RumbleSchedulerTests: XCTestCase {
    func testRumbleMixesStrongAndHalfTheWeakMotor() {
        XCTAssertEqual(RumbleEffect.rumble(strong: 0xFFFF, weak: 0, lengthMs: 100, delayMs: 0).strength, 1)
        XCTAssertEqual(RumbleEffect.rumble(strong: 0, weak: 0xFFFF, lengthMs: 100, delayMs: 0).strength, 0.5, accuracy: 1e-9)
        XCTAssertEqual(RumbleEffect.rumble(strong: 0x8000, weak: 0xFFFF, lengthMs: 100, delayMs: 0).strength, 1)
        XCTAssertEqual(RumbleEffect.level(-16384, lengthMs: 0, delayMs: 0).strength, 16384.0 / 32767, accuracy: 1e-9)
        let e = RumbleEffect.rumble(strong: 1, weak: 0, lengthMs: 250, delayMs: 40)
        XCTAssertEqual(e.lengthSeconds, 0.25)
        XCTAssertEqual(e.delaySeconds, 0.04)
    }

    func testPlayHonoursDelayLengthAndCount() {
        var s = RumbleScheduler()
        s.upload(id: 0, RumbleEffect(strength: 0.8, lengthSeconds: 0.2, delaySeconds: 0.1), at: 0)
        XCTAssertEqual(s.strength(at: 1.0), 0, "uploaded but not played")
        s.play(id: 0, count: 2, at: 1.0)
        XCTAssertEqual(s.strength(at: 1.05), 0, "in the delay")
        XCTAssertEqual(s.strength(at: 1.1), 0.8)
        XCTAssertEqual(s.strength(at: 1.29), 0.8)
        XCTAssertEqual(s.strength(at: 1.35), 0, "second delay")
        XCTAssertEqual(s.strength(at: 1.45), 0.8, "second play")
        XCTAssertEqual(s.strength(at: 1.61), 0, "two plays only")
        XCTAssertEqual(s.nextChange(after: 1.0)!, 1.1, accuracy: 1e-9)
        XCTAssertEqual(s.nextChange(after: 1.1)!, 1.3, accuracy: 1e-9)
        XCTAssertEqual(s.silence(from: 1.15)!, 1.3, accuracy: 1e-9)
        XCTAssertNil(s.nextChange(after: 1.6))
    }

    func testBackToBackPlaysWithoutDelayStayOnUntilTheLastEnds() {
        var s = RumbleScheduler()
        s.upload(id: 3, RumbleEffect(strength: 1, lengthSeconds: 0.1), at: 0)
        s.play(id: 3, count: 3, at: 2)
        XCTAssertEqual(s.strength(at: 2.1), 1)
        XCTAssertEqual(s.silence(from: 2)!, 2.3, accuracy: 1e-9)
    }

    func testStopEraseAndInfiniteLength() {
        var s = RumbleScheduler()
        s.upload(id: 1, RumbleEffect(strength: 0.5, lengthSeconds: 0), at: 0)
        s.play(id: 1, count: 1, at: 0)
        XCTAssertEqual(s.strength(at: 100), 0.5)
        XCTAssertNil(s.silence(from: 1), "length 0 plays until stopped")
        s.play(id: 1, count: 0, at: 5)
        XCTAssertEqual(s.strength(at: 5), 0)
        s.play(id: 1, count: 1, at: 6)
        XCTAssertEqual(s.strength(at: 6), 0.5)
        s.erase(id: 1)
        XCTAssertEqual(s.strength(at: 6), 0)
        s.play(id: 1, count: 1, at: 7)
        XCTAssertEqual(s.strength(at: 7), 0, "an erased effect cannot be played")
        XCTAssertFalse(s.upload(id: RumbleScheduler.maxEffects, RumbleEffect(strength: 1, lengthSeconds: 1), at: 0))
        s.play(id: 99, count: 1, at: 7)
        XCTAssertEqual(s.strength(at: 7), 0)
    }

    func testEffectsAddUpCappedAndGainScales() {
        var s = RumbleScheduler()
        s.upload(id: 0, RumbleEffect(strength: 0.3, lengthSeconds: 1), at: 0)
        s.upload(id: 1, RumbleEffect(strength: 0.4, lengthSeconds: 0.5), at: 0)
        s.play(id: 0, count: 1, at: 0)
        s.play(id: 1, count: 1, at: 0)
        XCTAssertEqual(s.strength(at: 0.2), 0.7, accuracy: 1e-9)
        XCTAssertEqual(s.strength(at: 0.7), 0.3, accuracy: 1e-9)
        XCTAssertEqual(s.silence(from: 0.2)!, 1, accuracy: 1e-9)
        s.upload(id: 2, RumbleEffect(strength: 0.9, lengthSeconds: 1), at: 0)
        s.play(id: 2, count: 1, at: 0)
        XCTAssertEqual(s.strength(at: 0.2), 1, "capped at full strength")
        s.setGain(0x8000)
        XCTAssertEqual(s.strength(at: 0.2), 0x8000 / 65535.0, accuracy: 1e-9)
        s.setGain(0)
        XCTAssertEqual(s.strength(at: 0.2), 0)
        s.setGain(0xFFFF)
        s.stopAll()
        XCTAssertEqual(s.strength(at: 0.2), 0)
    }

    func testReplacingAPlayingEffectRestartsIt() {
        var s = RumbleScheduler()
        s.upload(id: 0, RumbleEffect(strength: 1, lengthSeconds: 0.2), at: 0)
        s.play(id: 0, count: 1, at: 0)
        s.upload(id: 0, RumbleEffect(strength: 0.5, lengthSeconds: 0.2), at: 0.15)
        XCTAssertEqual(s.strength(at: 0.3), 0.5)
        XCTAssertEqual(s.silence(from: 0.3)!, 0.35, accuracy: 1e-9)
    }

    func testReplacingAnEffectWhosePlaysEndedDoesNotStartIt() {
        var s = RumbleScheduler()
        s.upload(id: 0, RumbleEffect(strength: 1, lengthSeconds: 0.05), at: 0)
        s.play(id: 0, count: 1, at: 0)
        XCTAssertEqual(s.strength(at: 0.01), 1)
        s.upload(id: 0, RumbleEffect(strength: 1, lengthSeconds: 0.05), at: 0.2)
        XCTAssertEqual(s.strength(at: 0.2), 0)
        XCTAssertNil(s.nextChange(after: 0.2))
        s.play(id: 0, count: 1, at: 0.3)
        XCTAssertEqual(s.strength(at: 0.3), 1)
    }
}
