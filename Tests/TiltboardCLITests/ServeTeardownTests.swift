import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import Tiltboard
import TiltboardCore
@testable import TiltboardCLI

/// serve's web server stops with the session's teardown, newest first: before the gamepad that
/// was created before it, and before the motor and the sensor under both.
final class ServeTeardownTests: XCTestCase {
    func testTheServerStopsBeforeTheGamepadAndTheMotor() throws {
        let folder = try makeScratchFolder(self)
        var board = BoardDescription.builtInSimulated(script: "flat")
        board.simulation?.motorLog = folder + "/motor.log"
        let session = try CommandBoard.open(board, clock: ManualClock(), profilePath: folder + "/board.json",
                                            useProfile: false, warn: false)
        let order = Order()
        // As `run --gamepad` opens them: the motor, then the gamepad, then (serve's hook) the server.
        let motor = try XCTUnwrap(try Motor.open(session, announceChanges: false))
        session.onClose { order.add("motor (server \(order.serverState()))") }
        session.onClose { order.add("gamepad (server \(order.serverState()))") }
        let command = try ServeCommand.parse(["--port", "0"])
        let (port, token, observers) = try command.serve(session, motor: motor, loop: session.makeLoop())
        XCTAssertNil(token, "loopback needs no token")
        XCTAssertEqual(observers.count, 1)
        order.port = port
        XCTAssertEqual(order.serverState(), "listening")

        session.close()
        XCTAssertEqual(order.list, ["gamepad (server stopped)", "motor (server stopped)"])
        XCTAssertEqual(order.serverState(), "stopped")
        XCTAssertTrue(session.isClosed)
    }
}

/// What the teardown did, in order, and whether the server still takes connections.
private final class Order: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var port: UInt16 = 0

    var list: [String] { lock.withLock { stored } }
    func add(_ entry: String) { lock.withLock { stored.append(entry) } }

    /// "listening" when a TCP connection to the port on loopback succeeds, else "stopped".
    func serverState() -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return "no socket" }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return rc == 0 ? "listening" : "stopped"
    }
}
