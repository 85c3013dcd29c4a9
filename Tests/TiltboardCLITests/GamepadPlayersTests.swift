import Foundation
@testable import Tiltboard
@testable import TiltboardCLI
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// A gamepad that records what it is sent and hands out the requests a test queues.
private final class FakePad: GamepadDevice, @unchecked Sendable {
    let name: String
    var reports = 0
    var last: (x: Int32, y: Int32, button: Bool)?
    var queued: [ForceFeedbackRequest] = []
    var closed = 0
    init(name: String) { self.name = name }
    func report(x: Int32, y: Int32, button: Bool) throws {
        reports += 1
        last = (x, y, button)
    }
    func pollRequests(_ handle: (ForceFeedbackRequest) -> Void) throws {
        let requests = queued
        queued = []
        requests.forEach(handle)
    }
    func close() { closed += 1 }
}

/// `gamepad` (and `run --gamepad`) with several boards: one device per board, named after its
/// player and made in player order, each one's rumble on its own board's motor only.
final class GamepadPlayersTests: XCTestCase {
    func testOneGamepadPerBoardInPlayerOrderEachRumblingOnlyItsOwnMotor() throws {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(script: "flat")
        board.simulation?.noise = false
        let sessions = try (0..<2).map { _ in try BoardSession(board: board, clock: clock, useProfile: false) }
        let lines = try sessions.map { try XCTUnwrap(try $0.openMotor() as? SimulatedGPIOLine) }
        let engines = lines.map { HapticEngine(line: $0, clock: clock) }
        defer {
            sessions.forEach { $0.close() }
            engines.forEach { $0.shutdown() }
        }
        var made: [FakePad] = []
        var slots: [Int] = []
        let links = try GamepadLink.players(options: try GamepadOptions.parse([]), axes: GamepadAxes(), sessions: sessions,
                                            engines: engines, makeDevice: { name, effectSlots in
                                                made.append(FakePad(name: name))
                                                slots.append(effectSlots)
                                                return made[made.count - 1]
                                            })
        XCTAssertEqual(made.map(\.name), ["Tiltboard 1", "Tiltboard 2"])
        XCTAssertEqual(links.map(\.name), ["Tiltboard 1", "Tiltboard 2"])
        XCTAssertEqual(slots, [RumbleScheduler.maxEffects, RumbleScheduler.maxEffects])
        // The second player's game asks for 300 ms of rumble.
        made[1].queued = [.upload(id: 0, .rumble(strong: 0xFFFF, weak: 0, lengthMs: 300, delayMs: 0)), .play(id: 0, count: 1)]
        let loops = sessions.map { $0.makeLoop(rateHz: 100) }
        let group = try TiltLoopGroup(loops)
        let observers = (0..<2).map { i in [LoopObserver(sample: { out, _ in links[i].update(out, loop: loops[i]) })] }
        group.start(for: .seconds(1), observers: observers).wait()
        XCTAssertEqual(lines[0].changes.map(\.active), [], "the first board's motor stays off")
        XCTAssertEqual(lines[1].changes.map(\.active), [true, false], "the second board's motor plays the rumble")
        if lines[1].changes.count == 2 {
            XCTAssertEqual(lines[1].changes[1].t - lines[1].changes[0].t, 0.3, accuracy: 1e-6)
        }
        XCTAssertEqual(made.map(\.reports), [101, 101])
        XCTAssertEqual(links.map(\.bridge.rumblePlays), [0, 1])
    }

    func testTheDeviceNamesFollowTheNameOption() throws {
        let options = try GamepadOptions.parse(["--name", "Pad"])
        XCTAssertEqual(GamepadLink.playerName(options.name, player: 2), "Pad 2")
    }

    /// A board whose sensor is lost leaves its pad centred, not held at the last tilt, while
    /// the other board's pad keeps following its own.
    func testALostBoardsPadIsCentredWhileTheOtherPlays() throws {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        var tilted = BoardDescription.builtInSimulated(script: "tilt-left")
        tilted.simulation?.noise = false
        var lost = tilted
        lost.simulation?.faults = [SimulatedFault(at: 2.0, kind: .unplug, seconds: 60)]
        let sessions = try [tilted, lost].map { try BoardSession(board: $0, clock: clock, useProfile: false) }
        defer { sessions.forEach { $0.close() } }
        var made: [FakePad] = []
        let links = try GamepadLink.players(options: try GamepadOptions.parse([]), axes: GamepadAxes(), sessions: sessions,
                                            engines: [nil, nil], makeDevice: { name, _ in
                                                made.append(FakePad(name: name))
                                                return made[made.count - 1]
                                            })
        let loops = sessions.map { $0.makeLoop(rateHz: 100) }
        let observers = (0..<2).map { i in [links[i].observer(loop: loops[i])] }
        let running = try TiltLoopGroup(loops).start(for: .seconds(3), observers: observers)
        running.wait()
        let first = try XCTUnwrap(made[0].last), second = try XCTUnwrap(made[1].last)
        XCTAssertNotEqual(first.x, 0, "the first board's pad still shows its tilt")
        XCTAssertEqual(second.x, 0)
        XCTAssertEqual(second.y, 0)
        XCTAssertFalse(second.button)
        XCTAssertGreaterThan(made[0].reports, made[1].reports)
    }
}
