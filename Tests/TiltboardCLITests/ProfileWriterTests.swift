import Foundation
import XCTest
import TiltboardCore
@testable import Tiltboard

/// Every path that writes a profile, run as the program, against a profile holding every section
/// (and two a newer version might add, laid out by hand): each changes only the sections it owns
/// and keeps every other one byte for byte.
final class ProfileWriterTests: XCTestCase {
    /// A simulated MPU-6050 with known errors, as `CalibrateCommandTests` uses.
    private func boardFile(_ folder: String) throws -> String {
        let path = folder + "/board.json"
        try """
        {"name": "writer-test", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "simulation": {"script": "flat", "noise": true, "seed": 3,
           "zeroGOffsetMg": [40, -30, 60], "scaleError": [0.02, -0.02, 0.02]}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Sections a newer tiltboard might add, in a layout of their own.
    private static let futureFirst = #"{"kept":  [1, 2.50, "x"], "nested": {"deep" : true}}"#
    private static let futureLast = "1.0"

    /// A profile for that board with every section set to something no writer would write.
    private func fullProfile() throws -> [UInt8] {
        let tilt = Quaternion(axis: Vector3(1, 0.5, 0), angle: 5 * .pi / 180)
        let profile = CalibrationProfile(
            board: ProfileBoardIdentity(name: "writer-test", chip: .mpu6050, bus: "simulated", address: 0x68, chipID: 0x68),
            createdAt: "2020-01-02T03:04:05Z", temperatureC: 31.5, sampleCount: 7, noiseMg: Vector3(9.5, 8.25, 7.125),
            neutral: NeutralPose(rotation: tilt, meanRawG: Vector3(0.08, 0.04, 0.99), tiltDeg: 5, clamped: false),
            sensor: .init(offsetG: Vector3(0.01, 0.02, 0.03), scale: Vector3(1.01, 0.99, 1.005), gyroBiasDps: Vector3(0.5, -0.5, 0.25),
                          residualMg: 9.75, writtenToChip: false),
            gyroBiasDps: Vector3(1.5, -2.5, 0.75),
            neutralSource: .init(sensorMeanG: Vector3(0.1, 0.05, 0.99), maxTiltDeg: 45),
            shake: ProfileShake(level: .firm, cooldownMs: 750))
        var text = String(decoding: try ProfileStore.encode(profile), as: UTF8.self)
        text = "{\n  \"aaFuture\" : \(Self.futureFirst)," + text.dropFirst(1)
        text = String(text.dropLast(3)) + ",\n  \"zzFuture\" : \(Self.futureLast)\n}\n"
        return Array(text.utf8)
    }

    private func members(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> [String: [UInt8]] {
        let parsed = try XCTUnwrap(JSONMembers(bytes), "not one JSON object", file: file, line: line)
        return Dictionary(uniqueKeysWithValues: parsed.members.map { ($0.key, Array($0.rawValue)) })
    }

    /// Each writer: its command line, the sections it may change, and those it must change from
    /// `fullProfile` (a writer that changed nothing would pass the first check).
    private let writers: [(name: String, arguments: [String], writer: ProfileWriter, owns: Set<String>, changes: Set<String>)] = [
        ("neutral capture", ["calibrate", "--yes", "--duration", "0.5"], .neutralCapture,
         ["neutral", "neutralSource", "sampleCount", "noiseMg", "gyroBiasDps", "createdAt", "temperatureC"],
         ["neutral", "neutralSource", "sampleCount", "noiseMg", "gyroBiasDps", "createdAt"]),
        ("zero", ["calibrate", "--zero"], .zero, ["neutral", "neutralSource", "createdAt"], ["neutral", "neutralSource", "createdAt"]),
        ("sensor calibration", ["calibrate", "--sensor", "--yes"], .sensorCalibration,
         ["sensor", "neutral", "gyroBiasDps", "createdAt", "temperatureC"], ["sensor", "neutral", "gyroBiasDps", "createdAt"]),
        ("profile shake gentle", ["profile", "shake", "gentle"], .shake, ["shake"], ["shake"]),
        ("profile shake default", ["profile", "shake", "default"], .shake, ["shake"], ["shake"]),
    ]

    func testEveryWriterChangesOnlyItsOwnSections() throws {
        let sections = Set(ProfileSection.allCases.map(\.rawValue)).union(["aaFuture", "zzFuture"])
        for w in writers {
            XCTAssertEqual(Set(w.writer.sections.map(\.rawValue)), w.owns, w.name)
            let folder = try makeScratchFolder(self)
            let board = try boardFile(folder)
            let path = folder + "/p.json"
            let before = try fullProfile()
            try before.write(to: path)
            let r = try CLIRunner.run(w.arguments + ["--board", board, "--profile", path])
            XCTAssertEqual(r.status, 0, "\(w.name): \(r.stderr)")
            let after = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let old = try members(before), new = try members(after)
            XCTAssertEqual(Set(old.keys), sections, "the starting profile holds every section")
            for section in sections.sorted() {
                if w.owns.contains(section) {
                    if w.changes.contains(section) {
                        XCTAssertNotEqual(old[section], new[section], "\(w.name) should have written \(section)")
                    }
                } else {
                    XCTAssertEqual(new[section].map { String(decoding: $0, as: UTF8.self) },
                                   old[section].map { String(decoding: $0, as: UTF8.self) },
                                   "\(w.name) changed \(section), which it does not own")
                }
            }
            XCTAssertEqual(new["aaFuture"].map { String(decoding: $0, as: UTF8.self) }, Self.futureFirst, w.name)
            // The result is a profile this version reads, and the backup is the file as it was.
            XCTAssertNoThrow(try ProfileStore.load(path: path, expectedBoard: nil), w.name)
            XCTAssertEqual(try Array(Data(contentsOf: URL(fileURLWithPath: path + ".bak"))), before, w.name)
        }
    }

    func testRemovedSectionsGoAndTheRestStays() throws {
        // zero removes neutralSource; `profile shake default` removes shake; the sensor
        // calibration removes the capture's gyro bias (the fit measured one).
        let removed: [String: String] = ["zero": "neutralSource", "profile shake default": "shake", "sensor calibration": "gyroBiasDps"]
        for w in writers {
            guard let section = removed[w.name] else { continue }
            let folder = try makeScratchFolder(self)
            let board = try boardFile(folder)
            let path = folder + "/p.json"
            try fullProfile().write(to: path)
            let r = try CLIRunner.run(w.arguments + ["--board", board, "--profile", path])
            XCTAssertEqual(r.status, 0, "\(w.name): \(r.stderr)")
            let new = try members(Array(Data(contentsOf: URL(fileURLWithPath: path))))
            XCTAssertNil(new[section], "\(w.name) leaves \(section) out")
            XCTAssertNotNil(new["zzFuture"], w.name)
        }
    }

    func testMembersAreFoundWhateverTheirValuesHold() throws {
        let text = #"{ "a\"b" : "x}\"]," , "n":-1.5e3,"o":{"s":"{[","t":[1,{"u":null}]},"z" : true }"#
        let m = try XCTUnwrap(JSONMembers(Array(text.utf8)))
        XCTAssertEqual(m.members.map(\.key), ["a\"b", "n", "o", "z"])
        XCTAssertEqual(m.members.map { String(decoding: $0.rawValue, as: UTF8.self) },
                       [#""x}\"],""#, "-1.5e3", #"{"s":"{[","t":[1,{"u":null}]}"#, "true"])
        XCTAssertEqual(JSONMembers(Array("{}".utf8))?.members.count, 0)
        XCTAssertNil(JSONMembers(Array("[1]".utf8)))
        XCTAssertNil(JSONMembers(Array(#"{"a": 1"#.utf8)))
    }

    /// The report: a calibration erased the player's setting.
    func testASensorCalibrationKeepsTheShakeSensitivity() throws {
        let folder = try makeScratchFolder(self)
        let board = try boardFile(folder)
        let path = folder + "/p.json"
        let set = try CLIRunner.run(["profile", "shake", "firm", "--board", board, "--profile", path])
        XCTAssertEqual(set.status, 0, set.stderr)
        for calibration in [["calibrate", "--sensor", "--yes"], ["calibrate", "--yes", "--duration", "0.5"], ["calibrate", "--zero"]] {
            let c = try CLIRunner.run(calibration + ["--board", board, "--profile", path])
            XCTAssertEqual(c.status, 0, c.stderr)
            let show = try CLIRunner.run(["profile", "shake", "--board", board, "--profile", path])
            XCTAssertEqual(show.stdout, "shake sensitivity firm (1.2 g), set in \(path)\n", "after \(calibration)")
        }
    }

    /// Written at the file a symlink names, the link kept, every writer.
    func testWritersWriteThroughASymlinkAndKeepIt() throws {
        for w in writers {
            let folder = try makeScratchFolder(self)
            let board = try boardFile(folder)
            try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
            try fullProfile().write(to: folder + "/real/p.json")
            XCTAssertEqual(symlink("real/p.json", folder + "/link.json"), 0)
            let r = try CLIRunner.run(w.arguments + ["--board", board, "--profile", folder + "/link.json"])
            XCTAssertEqual(r.status, 0, "\(w.name): \(r.stderr)")
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link.json"), "real/p.json", w.name)
            XCTAssertNotEqual(try Array(Data(contentsOf: URL(fileURLWithPath: folder + "/real/p.json"))), try fullProfile(), w.name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/real/p.json.bak"), w.name)
        }
    }
}

private extension Array where Element == UInt8 {
    func write(to path: String) throws { try Data(self).write(to: URL(fileURLWithPath: path)) }
}
