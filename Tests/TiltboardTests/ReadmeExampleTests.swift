// README: embedding example begins
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// When the marker first reaches the left edge while the board tilts left (s), and the roll then (°).
func leftEdge() throws -> (t: Double, rollDeg: Double)? {
    let clock = ManualClock()
    let bus = SimulatedI2CBus()
    bus.attach(SimulatedMPU6050(clock: clock, motion: MotionScript.builtIn(named: "tilt-left")!), at: 0x68)
    let sensor = try MPU6050(bus: bus, address: 0x68, clock: clock)
    try sensor.configure(SensorConfiguration())  // ±2 g, 100 Hz
    let pipeline = TiltPipeline(tracker: TiltTracker(estimator: TiltEstimator(mode: .gyroAided())))
    var edge: (t: Double, rollDeg: Double)?
    try TiltLoop(sensor: sensor, clock: clock, pipeline: pipeline, rateHz: 100).start(for: .seconds(3), observers: [LoopObserver(sample: { out, _ in
        if edge == nil, out.control.atEdgeX { edge = (out.t, out.tilt.rollDeg) }
    })]).wait()
    return edge
}

/// Every error of the package names its category; the message says what failed, and where.
func describe(_ error: Error) -> String {
    guard let error = error as? CategorizedError else { return "\(error)" }
    switch error.category {
    case .unavailable: return "no sensor: \(error)"
    case .permissionDenied: return "no access: \(error)"
    default: return "\(error.category): \(error)"
    }
}
// README: embedding example ends

import Foundation
import XCTest

/// docs/library.md's example: the code above is that page's text, kept compiling and true.
final class ReadmeExampleTests: XCTestCase {
    func testTheREADMEShowsThisFilesExample() throws {
        let readme = try String(contentsOfFile: packageRoot + "/docs/library.md", encoding: .utf8)
        let block = try XCTUnwrap(Self.between("<!-- embedding-example: Tests/TiltboardTests/ReadmeExampleTests.swift -->\n```swift\n",
                                               and: "```\n<!-- /embedding-example -->", in: readme),
                                  "docs/library.md has no embedding example")
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let code = try XCTUnwrap(Self.between("// README: embedding example begins\n", and: "// README: embedding example ends", in: source))
        XCTAssertEqual(block, code)
    }

    func testTheExampleReachesTheLeftEdgeOnTheTiltedBoard() throws {
        let edge = try XCTUnwrap(try leftEdge(), "the marker never reached the edge")
        // tilt-left holds the board flat for 0.5 s, then leans it 30° to the left over a second.
        XCTAssertGreaterThan(edge.t, 0.5)
        XCTAssertLessThan(edge.t, 3)
        XCTAssertLessThan(edge.rollDeg, -15, "the board is tilted left when the marker arrives")
    }

    func testTheExampleNamesTheCategoryOfAMissingSensor() throws {
        let clock = ManualClock()
        let error = try XCTUnwrap(Result { try MPU6050(bus: SimulatedI2CBus(), address: 0x68, clock: clock) }.failure)
        XCTAssertEqual(describe(error), "no sensor: \(error)")
        XCTAssertEqual((error as? I2CError)?.kind, .noAcknowledgeAddress)
        XCTAssertEqual(describe(BoardFileError(file: "b.json", key: "sensor", problem: .missing(.sensor))),
                       "invalidData: BoardFileError(missing(Tiltboard.BoardFileError.Problem.Required.sensor), file: b.json, key: sensor)")
    }

    private static func between(_ start: String, and end: String, in text: String) -> String? {
        guard let a = text.range(of: start), let b = text.range(of: end, range: a.upperBound..<text.endIndex) else { return nil }
        return String(text[a.upperBound..<b.lowerBound])
    }
}

private extension Result {
    var failure: Failure? { if case let .failure(e) = self { return e } else { return nil } }
}
