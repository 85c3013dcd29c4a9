import Foundation
import XCTest
@testable import Tiltboard
import TiltboardSimulator
#if canImport(Glibc)
import Glibc
#endif

/// Board files are strict JSON, errors quote little of what they were given, and the environment
/// is not taken on trust.
final class StrictInputTests: XCTestCase {
    private let sensor = #""sensor": {"chip": "mpu6050", "bus": "simulated"}"#

    private func error(_ json: String) -> BoardFileError? {
        do { _ = try BoardDescription.parse(json: Array(json.utf8), source: "b.json"); return nil } catch { return error as? BoardFileError }
    }

    func testDuplicateKeysAreRefusedNamingTheKeyAndWhere() {
        let twice = error(#"{"name": "a", "name": "b", \#(sensor)}"#)
        XCTAssertEqual(twice?.key, "name")
        XCTAssertEqual(twice?.problem, .notStrictJSON(.keyTwice(line: 1, column: 15)))
        XCTAssertEqual(error("{\"name\": \"a\",\n \(sensor.dropLast()), \"bus\": \"x\"}}")?.key, "sensor.bus")
        // Escapes name the same key.
        XCTAssertEqual(error(#"{"name": "a", "n\u0061me": "b", \#(sensor)}"#)?.key, "name")
        // The same key in two objects is fine.
        XCTAssertNil(error(#"{"name": "a", \#(sensor), "simulation": {"script": "flat", "faults": [{"at": 1, "kind": "unplug", "seconds": 1}, {"at": 3, "kind": "unplug", "seconds": 1}]}}"#))
    }

    func testTrailingCommasAreRefusedWithTheirPosition() {
        let comma = error(#"{"name": "a", \#(sensor),}"#)
        XCTAssertEqual(comma?.key, "")
        XCTAssertEqual(comma?.problem, .notStrictJSON(.commaBefore("}", line: 1, column: 65)))
        XCTAssertEqual(error(#"{"name": "a", \#(sensor), "simulation": {"faults": [{"at": 1, "kind": "unplug", "seconds": 1},]}}"#)?.key, "simulation.faults[1]")
        XCTAssertNotNil(error(#"{"name": "a,}", \#(sensor),}"#), "a comma in a string is not one")
        XCTAssertNil(error(#"{"name": "a,}", \#(sensor)}"#))
    }

    func testTheStrictCheckIsSafeOnAnyBytes() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[],:"\ a1"#.utf8) + [0xFF, 0x00]
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            _ = StrictJSON.problem(bytes)
        }
        XCTAssertNil(StrictJSON.problem(Array(String(repeating: "[", count: 100_000).utf8)))
    }

    func testALongPathIsQuotedShortAndASymlinkLoopSaysSo() throws {
        let folder = NSTemporaryDirectory() + "tiltboard-strict-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let long = folder + "/" + String(repeating: "x", count: 100_000)
        XCTAssertThrowsError(try BoardDescription.load(path: long)) { error in
            XCTAssertEqual((error as? BoardFileError)?.problem, .unreadable(errno: ENAMETOOLONG))
            XCTAssertEqual((error as? BoardFileError)?.file, long)
            let text = "\(error)"
            XCTAssertLessThan(text.count, 250, text)
            XCTAssertTrue(text.contains("file: …xxx"), text)
        }
        XCTAssertEqual(symlink(folder + "/b", folder + "/a"), 0)
        XCTAssertEqual(symlink(folder + "/a", folder + "/b"), 0)
        XCTAssertThrowsError(try BoardDescription.load(path: folder + "/a")) { error in
            let e = error as? BoardFileError
            XCTAssertEqual(e?.errno, ELOOP)
            XCTAssertEqual(e?.problem, .unreadable(errno: ELOOP))
            XCTAssertEqual(e?.category, .invalidData)
        }
    }

    func testARelativeHomeOrXDGFolderIsIgnored() {
        let a = ProfileStore.defaultPath(boardName: "B", environment: ["HOME": "relative/home", "XDG_CONFIG_HOME": "rel"])
        XCTAssertTrue(a.hasPrefix("/"), a)
        XCTAssertFalse(a.contains("relative/home"), a)
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "B", environment: ["HOME": "/h", "XDG_CONFIG_HOME": "rel", "STATE_DIRECTORY": "s"]),
                       "/h/.config/tiltboard/profiles/b.json")
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "B", environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/x"]), "/x/tiltboard/profiles/b.json")
    }

    func testAMalformedFirstTraceRowIsNotTakenForAHeader() throws {
        XCTAssertEqual(try TraceMotion(csv: "t,ax,ay,az\n0,0,0,1\n0.01,0,0,1\n").times.count, 2)
        XCTAssertEqual(try TraceMotion(csv: "0,0,0,1\n0.01,0,0,1\n").times.count, 2)
        for bad in ["x0.1,0,0,1\n0.2,0,0,1\n", "0.1,zero,0,1\n0.2,0,0,1\n", "t,0,0,1\n0.2,0,0,1\n"] {
            XCTAssertThrowsError(try TraceMotion(csv: bad), bad) { error in
                guard case .traceNotANumber(line: 1, _, _)? = (error as? MotionScriptError)?.problem else { return XCTFail("\(error)") }
            }
        }
    }
}
