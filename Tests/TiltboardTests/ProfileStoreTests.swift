import Foundation
import Tiltboard
import XCTest
import TiltboardCore

final class ProfileStoreTests: XCTestCase {
    private let identity = ProfileBoardIdentity(name: "GY-521 on Raspberry Pi", chip: .mpu6050, bus: "/dev/i2c-1",
                                                address: 0x68, chipID: 0x68)

    private func sample(sensor: Bool = true) -> CalibrationProfile {
        let rotation = Quaternion(axis: Vector3(0.3, 1, 0), angle: 0.07)
        return CalibrationProfile(
            board: identity, createdAt: "2026-11-21T08:30:00Z", temperatureC: 24.25, sampleCount: 400,
            noiseMg: Vector3(1.1, 1.3, 2.05),
            neutral: .init(rotation: rotation, meanRawG: Vector3(0.0699, -0.021, 0.9974), tiltDeg: 4.01, clamped: false),
            sensor: sensor ? .init(offsetG: Vector3(0.031, -0.012, 0.047), scale: Vector3(1.012, 0.994, 1.003),
                                   crossAxis: Matrix3(rows: Vector3(1, 0.002, 0), Vector3(-0.002, 1, 0.001), Vector3(0, 0, 1)),
                                   gyroBiasDps: Vector3(-1.25, 0.5, 0.125), residualMg: 2.5, writtenToChip: true) : nil)
    }

    private func refusal(_ text: String, expected: ProfileBoardIdentity? = nil,
                         file: StaticString = #filePath, line: UInt = #line) throws -> ProfileError {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        try Array(text.utf8).write(to: path)
        do {
            let p = try ProfileStore.load(path: path, expectedBoard: expected)
            XCTFail("loaded: \(String(describing: p))", file: file, line: line)
        } catch let error as ProfileError {
            XCTAssertEqual(error.path, path, file: file, line: line)
            XCTAssertTrue(error.description.hasPrefix("ProfileError("), error.description, file: file, line: line)
            return error
        }
        return ProfileError(path: "", kind: .unreadable, problem: .undecodable)
    }

    private func json(_ p: CalibrationProfile) throws -> String {
        String(decoding: try ProfileStore.encode(p), as: UTF8.self)
    }

    func testRoundTripIsExact() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/nested/profiles/p.json"
        for p in [sample(), sample(sensor: false)] {
            try ProfileStore.save(p, path: path)
            XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: identity), p)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("\"address\" : \"0x68\""), text)
        XCTAssertTrue(text.contains("\"schemaVersion\" : 1"), text)
        XCTAssertFalse(text.contains("\"sensor\""), "an absent sensor calibration is left out")
        // The previous version is kept as .bak.
        let backup = try ProfileStore.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path + ".bak"))), path: path + ".bak")
        XCTAssertEqual(backup, sample())
    }

    func testMissingFileIsNil() throws {
        let folder = try makeScratchFolder(self)
        XCTAssertNil(try ProfileStore.load(path: folder + "/none.json", expectedBoard: identity))
    }

    func testTruncatedAndCorruptAreRefused() throws {
        let full = try json(sample())
        for cut in [1, full.count / 3, full.count / 2, full.count - 3] {
            let e = try refusal(String(full.prefix(cut)))
            XCTAssertEqual(e.kind, .corrupt, "cut at \(cut)")
            XCTAssertEqual(e.problem, .invalidJSON, "cut at \(cut)")
        }
        XCTAssertEqual(try refusal("").problem, .empty)
        XCTAssertEqual(try refusal("\u{0}\u{0}garbage").kind, .corrupt)
        let missing = try refusal(full.replacingOccurrences(of: "\"sampleCount\" : 400,", with: ""))
        XCTAssertEqual(missing.problem, .missingKey("sampleCount"))
        let wrongType = try refusal(full.replacingOccurrences(of: "\"tiltDeg\" : 4.01", with: "\"tiltDeg\" : \"4\""))
        guard case .wrongType(key: "neutral.tiltDeg", _) = wrongType.problem else { return XCTFail("\(wrongType)") }
        let unknown = try refusal(full.replacingOccurrences(of: "\"tiltDeg\"", with: "\"extra\" : 1, \"tiltDeg\""))
        let byte = try refusal(full.replacingOccurrences(of: "\"address\" : \"0x68\"", with: "\"address\" : \"68\""))
        XCTAssertEqual(byte.problem, .notAByte(key: "board.address", text: "68"))
        XCTAssertEqual(unknown.problem, .unknownKey(key: "neutral.extra", allowed: ["clamped", "meanRawG", "rotation", "tiltDeg"]))
    }

    func testASectionOfANewerVersionIsIgnoredAndKept() throws {
        // A top-level section this version does not know: a newer tiltboard's addition.
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let full = try json(sample())
        let added = "{\n  \"aNewerSection\" : {\"x\":[1,2.50]},\n" + full.dropFirst(2)
        try Array(added.utf8).write(to: path)
        XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: identity), sample())
        var changed = sample()
        changed.sensor = nil
        changed.createdAt = "2026-11-22T08:30:00Z"
        try ProfileStore.save(changed, path: path, writer: .sensorCalibration)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("{\n  \"aNewerSection\" : {\"x\":[1,2.50]},\n  \"board\" : {"), text)
        XCTAssertFalse(text.contains("\"sensor\""), text)
        XCTAssertTrue(text.contains("\"createdAt\" : \"2026-11-22T08:30:00Z\""), text)
        // Apart from the section added, the file is what this version writes itself.
        XCTAssertEqual(text.replacingOccurrences(of: "  \"aNewerSection\" : {\"x\":[1,2.50]},\n", with: ""), try json(changed))
        // A section whose value does not change keeps its bytes, even laid out otherwise.
        let compact = text.replacingOccurrences(of: "\"temperatureC\" : 24.25", with: "\"temperatureC\" : 24.250")
        XCTAssertNotEqual(compact, text)
        try Array(compact.utf8).write(to: path)
        try ProfileStore.save(changed, path: path, sections: [.temperatureC])
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), compact)
    }

    func testNewerSchemaIsRefused() throws {
        var p = sample()
        p.schemaVersion = 2
        let e = try refusal(try json(p))
        XCTAssertEqual(e.kind, .newerVersion)
        XCTAssertEqual(e.problem, .newerVersion(found: 2, readsUpTo: 1))
        // A newer file is recognised even when the rest has changed beyond recognition.
        XCTAssertEqual(try refusal(#"{"schemaVersion": 7, "everything": "else"}"#).kind, .newerVersion)
        XCTAssertEqual(try refusal(#"{"schemaVersion": true}"#).kind, .corrupt)
    }

    func testInvalidValuesAreRefused() throws {
        let full = try json(sample())
        func invalid(_ from: String, _ to: String) throws -> ProfileValueProblem? {
            XCTAssertTrue(full.contains(from), from)
            let e = try refusal(full.replacingOccurrences(of: from, with: to))
            XCTAssertEqual(e.kind, .invalid, e.description)
            guard case let .invalidValue(problem) = e.problem else { XCTFail("\(e)"); return nil }
            return problem
        }
        XCTAssertEqual(try invalid("1.012,", "0,"), .sensorScale(Vector3(0, 0.994, 1.003)))
        XCTAssertEqual(try invalid("\"sampleCount\" : 400", "\"sampleCount\" : -1"), .sampleCount(-1))
        XCTAssertEqual(try invalid("\"sampleCount\" : 400", "\"gyroBiasDps\" : [600, 0, 0], \"sampleCount\" : 400"),
                       .gyroBiasDps(Vector3(600, 0, 0)))
        XCTAssertEqual(try invalid("\"schemaVersion\" : 1", "\"schemaVersion\" : 0"), .schemaVersion(0))
        let w = String(sample().neutral.rotation.w)
        guard case .neutralRotation = try invalid("\"w\" : \(w)", "\"w\" : 0.5") else { return XCTFail("not a unit quaternion") }
        XCTAssertEqual(try invalid("\"address\" : \"0x68\"", "\"address\" : \"0x53\""), .boardAddress(0x53, part: "MPU-6050"))
        XCTAssertEqual(try invalid("2026-11-21T08:30:00Z", "yesterday"), .createdAt("yesterday"))
        XCTAssertEqual(try invalid("\"residualMg\" : 2.5", "\"residualMg\" : -1"), .sensorResidualMg(-1))
        // NaN cannot even be written: save refuses an invalid profile before touching the file.
        var nan = sample()
        nan.neutral.tiltDeg = .nan
        let folder = try makeScratchFolder(self)
        XCTAssertThrowsError(try ProfileStore.save(nan, path: folder + "/p.json")) { error in
            XCTAssertEqual((error as? ProfileError)?.kind, .invalid)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/p.json"))
    }

    func testOtherBoardIsRefused() throws {
        let text = try json(sample())
        var other = identity
        other.address = 0x69
        var e = try refusal(text, expected: other)
        XCTAssertEqual(e.kind, .otherBoard)
        XCTAssertEqual(e.problem, .otherBoard(.address(profile: 0x68, board: 0x69)))
        other = identity
        other.name = "bench rig"
        e = try refusal(text, expected: other)
        XCTAssertEqual(e.problem, .otherBoard(.name(profile: "GY-521 on Raspberry Pi", board: "bench rig")))
        other = identity
        other.chipID = 0x70
        e = try refusal(text, expected: other)
        XCTAssertEqual(e.problem, .otherBoard(.chipID(profile: 0x68, board: 0x70)))
    }

    func testTimestamps() {
        XCTAssertEqual(CalibrationProfile.timestamp(Date(timeIntervalSince1970: 1_763_713_800)), "2025-11-21T08:30:00Z")
        XCTAssertEqual(CalibrationProfile.date(fromTimestamp: "2025-11-21T08:30:00Z")?.timeIntervalSince1970, 1_763_713_800)
        XCTAssertEqual(CalibrationProfile.date(fromTimestamp: "2025-11-21T10:30:00.500+02:00")?.timeIntervalSince1970, 1_763_713_800.5)
        XCTAssertNil(CalibrationProfile.date(fromTimestamp: "2025-11-21"))
    }

    func testDefaultPathAndSlug() {
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "GY-521 on Raspberry Pi",
                                                environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/pi"]),
                       "/cfg/tiltboard/profiles/gy-521-on-raspberry-pi.json")
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "simulated MPU-6050 board", environment: ["HOME": "/home/pi"]),
                       "/home/pi/.config/tiltboard/profiles/simulated-mpu-6050-board.json")
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "x", environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]),
                       "/h/.config/tiltboard/profiles/x.json")
        XCTAssertNotNil(ProfileStore.slug("  Bench/Rig #2 (ÄÖ) ").range(of: #"^bench-rig-2-[0-9a-f]{8}$"#, options: .regularExpression))
        XCTAssertEqual(ProfileStore.slug("../.."), "board")
    }

    /// Under systemd (`StateDirectory=`) the profile lives in the service's state directory.
    func testDefaultPathInAServicesStateDirectory() {
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "GY-521 on Raspberry Pi",
                                                environment: ["STATE_DIRECTORY": "/var/lib/tiltboard", "XDG_CONFIG_HOME": "/cfg"]),
                       "/var/lib/tiltboard/profiles/gy-521-on-raspberry-pi.json")
        // One path per StateDirectory= entry, colon-separated: the first is the service's own.
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "x", environment: ["STATE_DIRECTORY": "/var/lib/a:/var/lib/b"]),
                       "/var/lib/a/profiles/x.json")
        XCTAssertEqual(ProfileStore.defaultPath(boardName: "x", environment: ["STATE_DIRECTORY": "relative", "HOME": "/h"]),
                       "/h/.config/tiltboard/profiles/x.json")
    }
}

extension Array where Element == UInt8 {
    func write(to path: String) throws {
        try Data(self).write(to: URL(fileURLWithPath: path))
    }
}

/// Profile file names for board names in any script.
final class ProfileNameTests: XCTestCase {
    func testNamesBeyondASCIIGetDistinctStableFileNames() {
        let names = ["Доска", "Доска 2", "ボード", "ボード２", "🎮", "🕹️", "board", "Board"]
        let slugs = names.map(ProfileStore.slug)
        XCTAssertEqual(Set(slugs.prefix(6)).count, 6, "\(slugs)")
        XCTAssertFalse(slugs.prefix(6).contains("board"), "\(slugs)")
        // Readable ASCII kept, hash added.
        XCTAssertNotNil(slugs[1].range(of: #"^2-[0-9a-f]{8}$"#, options: .regularExpression), slugs[1])
        XCTAssertNotNil(slugs[0].range(of: #"^board-[0-9a-f]{8}$"#, options: .regularExpression), slugs[0])
        // Plain ASCII names keep their old file names.
        XCTAssertEqual(ProfileStore.slug("GY-521 on Raspberry Pi"), "gy-521-on-raspberry-pi")
        // The same name typed composed or decomposed is the same board.
        XCTAssertEqual(ProfileStore.slug("Caf\u{e9}"), ProfileStore.slug("Cafe\u{301}"))
        XCTAssertEqual(ProfileStore.slug("Доска"), slugs[0])
    }
}
