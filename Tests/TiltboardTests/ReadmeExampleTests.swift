import XCTest
import Tiltboard
import TiltboardCore

/// The README's library example, kept compiling and true.
final class ReadmeExampleTests: XCTestCase {
    func testTheLoopExampleReachesTheLeftEdge() throws {
        let clock = ManualClock()
        let board = BoardDescription.builtInSimulated(script: "tilt-left")
        let session = try BoardSession(board: board, clock: clock, useProfile: false)
        defer { session.close() }
        let loop = try TiltLoop(session: session, rateHz: 100, haptics: nil)
        nonisolated(unsafe) var reachedAt: Double?
        nonisolated(unsafe) var roll = 0.0
        _ = try loop.run(duration: 3) { out, _ in
            if reachedAt == nil, out.control.atEdgeX { reachedAt = out.t; roll = out.tilt.rollDeg }
        }
        let t = try XCTUnwrap(reachedAt, "the marker never reached the edge")
        XCTAssertLessThan(t, 3)
        XCTAssertLessThan(roll, -15, "the board is tilted left when the marker arrives")
    }
}
