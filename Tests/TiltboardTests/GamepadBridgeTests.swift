import Foundation
import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// A gamepad that records what it is sent and hands out the requests a test queues.
private final class FakeGamepad: GamepadDevice {
    var reports: [String] = []
    var queued: [ForceFeedbackRequest] = []
    var closed = 0

    func report(x: Int32, y: Int32, button: Bool) throws { reports.append("\(x) \(y) \(button ? 1 : 0)") }
    func pollRequests(_ handle: (ForceFeedbackRequest) -> Void) throws {
        let requests = queued
        queued = []
        requests.forEach(handle)
    }
    func close() { closed += 1 }
}

/// The bridge on a manual clock, with the motor engine stepped by hand: stick values and signs,
/// the shake button, and game rumble → motor edges, under the engine's on-time cap.
final class GamepadBridgeTests: XCTestCase {
    private let t0: UInt64 = 10_000_000_000

    private func setUp(maxOnSeconds: Double = 2) -> (GamepadBridge, FakeGamepad, SimulatedGPIOLine, ManualClock, HapticEngine) {
        let clock = ManualClock(startNanoseconds: t0)
        let line = SimulatedGPIOLine(clock: clock)
        let engine = HapticEngine(line: line, clock: clock, cap: MotorCapSettings(maxOnSeconds: maxOnSeconds), startsThread: false)
        addTeardownBlock { engine.shutdown() }
        let device = FakeGamepad()
        return (GamepadBridge(device: device, axes: GamepadAxes(), engine: engine, clock: clock), device, line, clock, engine)
    }

    /// A sample with the neutral-rotated gravity of `tilt`, at time `t`.
    private func sample(_ t: Double, pitch: Double = 0, roll: Double = 0, shaking: Bool = false) -> PipelineOutput {
        PipelineOutput(t: t, tilt: TiltAngles(pitchDeg: pitch, rollDeg: roll), shaking: shaking)
    }

    /// Moves to `seconds` after `t0`, servicing the engine at each change it asks for on the way.
    private func run(_ engine: HapticEngine, _ clock: ManualClock, to seconds: Double) {
        driveEngine(engine, clock, to: t0 + Nanoseconds.span(seconds: seconds, rounded: .toNearestOrAwayFromZero))
    }

    private func edges(_ line: SimulatedGPIOLine) -> [String] { motorEdges(line, since: t0) }

    func testTiltAndShakeReachTheStickAndButton() throws {
        let (bridge, device, _, _, _) = setUp()
        try bridge.update(sample(0.00, roll: 25))
        try bridge.update(sample(0.01, pitch: 25))
        try bridge.update(sample(0.02, shaking: true))
        try bridge.update(sample(0.05))
        try bridge.update(sample(0.13))
        XCTAssertEqual(device.reports, ["32767 0 0", "0 -32767 0", "0 0 1", "0 0 1", "0 0 0"])
    }

    /// Centred: the stick at rest and the button up, and a shake under way does not hold the
    /// button down afterwards.
    func testCentreReleasesTheStickAndTheButton() throws {
        let (bridge, device, _, _, _) = setUp()
        try bridge.update(sample(0.00, roll: 25, shaking: true))
        try bridge.centre()
        try bridge.update(sample(0.03, roll: 25))
        XCTAssertEqual(device.reports, ["32767 0 1", "0 0 0", "32767 0 0"])
    }

    func testARumbleRequestTurnsTheMotorOnForItsLength() throws {
        let (bridge, device, line, clock, engine) = setUp()
        device.queued = [.upload(id: 0, .rumble(strong: 0xFFFF, weak: 0, lengthMs: 300, delayMs: 0)), .play(id: 0, count: 1)]
        try bridge.update(sample(0))
        run(engine, clock, to: 1)
        XCTAssertEqual(edges(line), ["0 on", "300 off"])
        XCTAssertEqual(bridge.rumblePlays, 1)
    }

    func testStopTurnsTheMotorOffAtOnce() throws {
        let (bridge, device, line, clock, engine) = setUp()
        device.queued = [.upload(id: 2, .rumble(strong: 0xFFFF, weak: 0, lengthMs: 1000, delayMs: 0)), .play(id: 2, count: 1)]
        try bridge.update(sample(0))
        run(engine, clock, to: 0.1)
        device.queued = [.play(id: 2, count: 0)]
        try bridge.update(sample(0.1))
        run(engine, clock, to: 1)
        XCTAssertEqual(edges(line), ["0 on", "100 off"])
    }

    func testAnEndlessRumbleStopsAtTheMotorCap() throws {
        let (bridge, device, line, clock, engine) = setUp(maxOnSeconds: 2)
        device.queued = [.upload(id: 0, .rumble(strong: 0xFFFF, weak: 0, lengthMs: 0, delayMs: 0)), .play(id: 0, count: 1)]
        // Every tick of a 100 Hz loop for 5 s: the requests keep the effect playing, the cap holds.
        for tick in 0..<500 {
            try bridge.update(sample(Double(tick) / 100))
            run(engine, clock, to: Double(tick + 1) / 100)
        }
        // The engine's cap: at most 2 s on, then at least the 0.5 s rest, while the effect goes on.
        XCTAssertEqual(edges(line), ["0 on", "2000 off", "2500 on", "4500 off", "5000 on"])
        XCTAssertEqual(engine.capTrips, 2)
    }

    func testPartialStrengthIsSoftwarePWMAndGainScalesIt() throws {
        let (bridge, device, line, clock, engine) = setUp()
        device.queued = [.gain(0x8000), .upload(id: 0, .rumble(strong: 0xFFFF, weak: 0, lengthMs: 100, delayMs: 0)), .play(id: 0, count: 1)]
        try bridge.update(sample(0))
        run(engine, clock, to: 1)
        // 200 Hz carrier at about half duty: 20 periods of ~2.5 ms on.
        XCTAssertEqual(line.changes.filter(\.active).count, 20)
        XCTAssertEqual(line.activeSeconds, 0.05, accuracy: 0.002)
    }

    func testClosingStopsTheMotorAndRemovesTheDevice() throws {
        let (bridge, device, line, clock, engine) = setUp()
        device.queued = [.upload(id: 0, .rumble(strong: 0xFFFF, weak: 0, lengthMs: 0, delayMs: 0)), .play(id: 0, count: 1)]
        try bridge.update(sample(0))
        run(engine, clock, to: 0.5)
        bridge.close()
        run(engine, clock, to: 1)
        XCTAssertEqual(edges(line), ["0 on", "500 off"])
        XCTAssertEqual(device.closed, 1)
    }
}
