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

    /// The key and the kind of problem (`BoardFileWordingTests` pins the words).
    private struct Failure: Equatable {
        var key: String
        var problem: BoardFileError.Problem
        init(_ key: String, _ problem: BoardFileError.Problem) { self.key = key; self.problem = problem }
    }

    private func message(_ faults: String, file: StaticString = #filePath, line: UInt = #line) -> Failure? {
        do {
            _ = try parse(faults)
            XCTFail("parsed: \(faults)", file: file, line: line)
        } catch let error as BoardFileError {
            XCTAssertEqual(error.file, "Boards/f.json", file: file, line: line)
            return Failure(error.key, error.problem)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
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
        let cases: [(String, Failure)] = [
            (#"{"at": 1}"#, Failure("simulation.faults", .notAllowed(value: WrittenValue([.object]), allowed: .faultList(kinds: ["nack", "eio", "reset", "unplug"])))),
            (#"[{"at": 1, "kind": "glitch", "seconds": 1}]"#, Failure("simulation.faults[0].kind", .notAllowed(value: "\"glitch\"", allowed: .faultKind(kinds: ["nack", "eio", "reset", "unplug"])))),
            (#"[{"at": 1, "kind": "reset"}, {"at": 1, "seconds": 1}]"#, Failure("simulation.faults[1].kind", .missing(.faultKind(kinds: ["nack", "eio", "reset", "unplug"])))),
            (#"[{"kind": "reset"}]"#, Failure("simulation.faults[0].at", .missing(.faultStart))),
            (#"[{"at": -1, "kind": "reset"}]"#, Failure("simulation.faults[0].at", .notAllowed(value: "-1", allowed: .secondsSinceOpen(low: 0.0, high: 86400.0)))),
            (#"[{"at": "soon", "kind": "reset"}]"#, Failure("simulation.faults[0].at", .notAllowed(value: "\"soon\"", allowed: .secondsSinceOpen(low: 0.0, high: 86400.0)))),
            (#"[{"at": 1, "kind": "nack"}]"#, Failure("simulation.faults[0].seconds", .missing(.faultLength(kind: "nack")))),
            (#"[{"at": 1, "kind": "unplug", "seconds": 0}]"#, Failure("simulation.faults[0].seconds", .notAllowed(value: "0", allowed: .positiveSeconds(high: 3600.0)))),
            (#"[{"at": 1, "kind": "reset", "seconds": 1}]"#, Failure("simulation.faults[0].seconds", .resetTakesNoTime)),
            (#"[{"at": 1, "kind": "eio", "seconds": 1, "errno": 5}]"#, Failure("simulation.faults[0].errno", .unknownKey(section: "simulation.faults[0]", allowed: ["at", "kind", "seconds"]))),
            (#"[3]"#, Failure("simulation.faults[0]", .notAllowed(value: "3", allowed: .object))),
        ]
        for (faults, expected) in cases {
            XCTAssertEqual(message(faults), expected, faults)
        }
        let many = "[" + Array(repeating: #"{"at": 1, "kind": "reset"}"#, count: 101).joined(separator: ",") + "]"
        XCTAssertEqual(message(many), Failure("simulation.faults", .tooManyFaults(count: 101, limit: 100)))
    }

    func testFaultsNeedASimulatedBus() {
        let text = #"{"name": "f", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1"}, "simulation": {"faults": []}}"#
        XCTAssertThrowsError(try BoardDescription.parse(json: Array(text.utf8), source: "Boards/f.json")) { error in
            XCTAssertEqual((error as? BoardFileError)?.key, "simulation")
        }
    }
}
