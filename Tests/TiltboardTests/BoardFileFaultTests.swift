import Foundation
import Tiltboard
import TiltboardSimulator
import XCTest

/// `simulation.faults` in board files: parsed exactly, refused in one line naming file and key.
final class BoardFileFaultTests: XCTestCase {
    private func board(_ faults: String) -> String {
        #"{"name": "f", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {"faults": "# + faults + "}}"
    }

    private func parse(_ faults: String) throws -> BoardDescription {
        try BoardDescription.parse(json: Array(board(faults).utf8), source: "Boards/f.json")
    }

    private func message(_ faults: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try parse(faults)
            XCTFail("parsed: \(faults)", file: file, line: line)
        } catch let error as BoardFileError {
            XCTAssertFalse(error.description.contains("\n"), file: file, line: line)
            return error.description
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return ""
    }

    func testTheDocumentedExampleParsesExactly() throws {
        let b = try parse(#"[{"at": 1.0, "kind": "nack", "seconds": 0.5}, {"at": 3.0, "kind": "reset"}, {"at": 5.0, "kind": "unplug", "seconds": 2}, {"at": 0, "kind": "eio", "seconds": 0.01}]"#)
        XCTAssertEqual(b.simulation?.faults, [SimulatedFault(at: 1, kind: .nack, seconds: 0.5), SimulatedFault(at: 3, kind: .reset),
                                              SimulatedFault(at: 5, kind: .unplug, seconds: 2), SimulatedFault(at: 0, kind: .eio, seconds: 0.01)])
        XCTAssertEqual(try parse("[]").simulation?.faults, [])
        let shipped = try BoardDescription.load(path: packageRoot + "/Boards/simulated-faults.json")
        XCTAssertEqual(shipped.simulation?.faults.map(\.kind), [.nack, .reset, .unplug])
    }

    func testEachMistakeNamesTheFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"at": 1}"#, #"board file Boards/f.json: simulation.faults: an object { … } is not allowed (use a list of {"at": seconds, "kind": "nack", "eio", "reset", "unplug", "seconds": duration})"#),
            (#"[{"at": 1, "kind": "glitch", "seconds": 1}]"#, #"board file Boards/f.json: simulation.faults[0].kind: "glitch" is not allowed (use one of "nack", "eio", "reset", "unplug")"#),
            (#"[{"at": 1, "kind": "reset"}, {"at": 1, "seconds": 1}]"#, #"board file Boards/f.json: simulation.faults[1].kind: missing (use one of "nack", "eio", "reset", "unplug")"#),
            (#"[{"kind": "reset"}]"#, "board file Boards/f.json: simulation.faults[0].at: missing (seconds since the board opened)"),
            (#"[{"at": -1, "kind": "reset"}]"#, "board file Boards/f.json: simulation.faults[0].at: -1 is not allowed (use 0 to 86400 seconds since the board opened)"),
            (#"[{"at": "soon", "kind": "reset"}]"#, #"board file Boards/f.json: simulation.faults[0].at: "soon" is not allowed (use 0 to 86400 seconds since the board opened)"#),
            (#"[{"at": 1, "kind": "nack"}]"#, "board file Boards/f.json: simulation.faults[0].seconds: missing (how long the nack lasts, in seconds)"),
            (#"[{"at": 1, "kind": "unplug", "seconds": 0}]"#, "board file Boards/f.json: simulation.faults[0].seconds: 0 is not allowed (use more than 0 and at most 3600 seconds)"),
            (#"[{"at": 1, "kind": "reset", "seconds": 1}]"#, "board file Boards/f.json: simulation.faults[0].seconds: a reset takes no time (remove the key)"),
            (#"[{"at": 1, "kind": "eio", "seconds": 1, "errno": 5}]"#, "board file Boards/f.json: simulation.faults[0].errno: unknown key (allowed in simulation.faults[0]: at, kind, seconds)"),
            (#"[3]"#, "board file Boards/f.json: simulation.faults[0]: 3 is not allowed (use an object { … })"),
        ]
        for (faults, expected) in cases {
            XCTAssertEqual(message(faults), expected, faults)
        }
        let many = "[" + Array(repeating: #"{"at": 1, "kind": "reset"}"#, count: 101).joined(separator: ",") + "]"
        XCTAssertEqual(message(many), "board file Boards/f.json: simulation.faults: 101 faults; at most 100")
    }

    func testFaultsNeedASimulatedBus() {
        let text = #"{"name": "f", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1"}, "simulation": {"faults": []}}"#
        XCTAssertThrowsError(try BoardDescription.parse(json: Array(text.utf8), source: "Boards/f.json")) { error in
            XCTAssertEqual((error as? BoardFileError)?.key, "simulation")
        }
    }
}
