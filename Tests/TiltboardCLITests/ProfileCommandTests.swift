import Foundation
import Tiltboard
@testable import TiltboardCLI
import XCTest

final class ProfileCommandTests: XCTestCase {
    func testShowWithoutAProfileSaysWhereAndWhatToRun() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["profile", "show", "--profile", folder + "/p.json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "no profile at \(folder)/p.json — run `tiltboard calibrate`\n")
        XCTAssertEqual(r.stderr, "")
    }

    func testDefaultPathFollowsXDGConfigHome() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["profile"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "no profile at \(folder)/tiltboard/profiles/simulated-mpu-6050-board.json — run `tiltboard calibrate`\n")
    }

    func testShowPrintsTheStoredProfile() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let write = try CLIRunner.run(["profile", "stress-write", "--profile", path, "--seed", "5", "--count", "2"])
        XCTAssertEqual(write.status, 0, write.stderr)
        let versions = StressProfiles.versions(seed: 5)
        XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: nil), versions[1])
        XCTAssertEqual(try ProfileStore.load(path: path + ".bak", expectedBoard: nil), versions[0])

        let r = try CLIRunner.run(["profile", "show", "--profile", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, """
        profile \(path)
          board        simulated MPU-6050 board: MPU-6050 at 0x68 on simulated, chip ID 0x68
          created      2026-01-02T12:00:00Z, 21.0 °C
          samples      101, noise [1.10, 1.50, 2.00] mg
          neutral      tilt 3.00°, mean [-0.0234, 0.0469, 0.9986] g
                       rotation w 0.999656 x 0.023452 y 0.011726 z 0.000000
          sensor       offset [0.0100, -0.0200, 0.0300] g, scale [1.0100, 0.9900, 1.0000], residual 1.25 mg
                       gyro bias [0.500, -0.250, 1.005] °/s
                       cross-axis corrected, written to the chip's offset registers
          schema       1

        """)

        let json = try CLIRunner.run(["profile", "show", "--profile", path, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["path"] as? String, path)
        let profileData = try JSONSerialization.data(withJSONObject: try XCTUnwrap(object?["profile"]))
        XCTAssertEqual(try JSONDecoder().decode(CalibrationProfile.self, from: profileData), versions[1])

        let none = try CLIRunner.run(["profile", "show", "--profile", folder + "/none.json", "--json"])
        XCTAssertEqual(none.status, 0)
        let noneObject = try JSONSerialization.jsonObject(with: Data(none.stdout.utf8)) as? [String: Any]
        XCTAssertTrue(noneObject?["profile"] is NSNull, none.stdout)
    }

    func testCorruptProfileExits65WithOneLine() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        try Data(#"{"schemaVersion": 1, "board": {"#.utf8).write(to: URL(fileURLWithPath: path))
        let r = try CLIRunner.run(["profile", "show", "--profile", path])
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "tiltboard: error: profile \(path): not valid JSON, truncated or corrupt (run `tiltboard calibrate` to measure a new one, or restore \(path).bak)\n")

        try Data(#"{"schemaVersion": 3}"#.utf8).write(to: URL(fileURLWithPath: path))
        let newer = try CLIRunner.run(["profile", "show", "--profile", path])
        XCTAssertEqual(newer.status, 65)
        XCTAssertEqual(newer.stderr, "tiltboard: error: profile \(path): written by a newer tiltboard (schema 3; this one reads up to 1): upgrade tiltboard, or recalibrate with this one\n")
    }

    func testProfileOfAnotherBoardExits65() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        XCTAssertEqual(try CLIRunner.run(["profile", "stress-write", "--profile", path, "--count", "1"]).status, 0)
        let r = try CLIRunner.run(["profile", "show", "--board", packageRoot + "/Boards/mpu6050.json", "--profile", path])
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "tiltboard: error: profile \(path): belongs to another board: it is for board \"simulated MPU-6050 board\", not \"GY-521 on Raspberry Pi\" (run `tiltboard calibrate` for this board, or pass its own --profile)\n")
    }

    func testBadBoardFileExits65() throws {
        let folder = try makeScratchFolder(self)
        let board = folder + "/b.json"
        try Data(#"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1", "accelRangeG": 3}}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let r = try CLIRunner.run(["profile", "show", "--board", board])
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "tiltboard: error: board file \(board): sensor.accelRangeG: 3 is not allowed (use 2, 4, 8 or 16)\n")
        let missing = try CLIRunner.run(["profile", "show", "--board", folder + "/none.json"])
        XCTAssertEqual(missing.status, 65)
        XCTAssertEqual(missing.stderr, "tiltboard: error: board file \(folder)/none.json: no such file (see Boards/ for examples, or omit --board to use the simulated board)\n")
    }

    func testHelp() throws {
        let top = try CLIRunner.run(["--help"])
        XCTAssertEqual(top.status, 0)
        XCTAssertTrue(top.stdout.contains("profile"), top.stdout)
        XCTAssertTrue(top.stdout.contains("65 invalid board or profile file"), top.stdout)
        let show = try CLIRunner.run(["profile", "show", "--help"])
        XCTAssertEqual(show.status, 0)
        for option in ["--board <board>", "--profile <profile>", "--json"] {
            XCTAssertTrue(show.stdout.contains(option), "\(option) missing from:\n\(show.stdout)")
        }
        let profile = try CLIRunner.run(["profile", "--help"])
        XCTAssertEqual(profile.status, 0)
        XCTAssertTrue(profile.stdout.contains("show (default)"), profile.stdout)
        XCTAssertFalse(profile.stdout.contains("stress-write"), "the test helper stays hidden")
        let usage = try CLIRunner.run(["profile", "show", "--frobnicate"])
        XCTAssertEqual(usage.status, 64)
    }
}

/// `tiltboard profile shake`: the player's shake sensitivity in the profile.
final class ProfileShakeCommandTests: XCTestCase {
    func testSetShowAndResetTheSensitivity() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let none = try CLIRunner.run(["profile", "shake", "--profile", path])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "shake sensitivity normal (0.8 g), the board file's default\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "showing writes nothing")

        // No profile yet: one is made, level, with the section.
        let firm = try CLIRunner.run(["profile", "shake", "firm", "--profile", path])
        XCTAssertEqual(firm.status, 0, firm.stderr)
        XCTAssertEqual(firm.stdout, "shake sensitivity firm (1.2 g) saved in \(path)\n")
        let saved = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: nil))
        XCTAssertEqual(saved.shake, ProfileShake(level: .firm))
        XCTAssertEqual(saved.neutral, .level)
        XCTAssertEqual(saved.board.name, "simulated MPU-6050 board")

        let shown = try CLIRunner.run(["profile", "shake", "--profile", path])
        XCTAssertEqual(shown.stdout, "shake sensitivity firm (1.2 g), set in \(path)\n")
        XCTAssertTrue(try CLIRunner.run(["profile", "show", "--profile", path]).stdout.contains("  shake        sensitivity firm (1.2 g)\n"))

        // Expert keys over the level; an existing profile keeps everything else.
        let expert = try CLIRunner.run(["profile", "shake", "gentle", "--threshold", "0.7", "--min-reversals", "3",
                                        "--cooldown", "900", "--profile", path])
        XCTAssertEqual(expert.status, 0, expert.stderr)
        XCTAssertEqual(expert.stdout, "shake sensitivity custom (0.7 g) saved in \(path)\n")
        let edited = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: nil))
        XCTAssertEqual(edited.shake, ProfileShake(level: .gentle, thresholdG: 0.7, minReversals: 3, cooldownMs: 900))
        XCTAssertEqual(edited.createdAt, saved.createdAt)

        let reset = try CLIRunner.run(["profile", "shake", "default", "--profile", path])
        XCTAssertEqual(reset.status, 0, reset.stderr)
        XCTAssertEqual(reset.stdout, "shake sensitivity normal (0.8 g), the board file's default; saved \(path)\n")
        XCTAssertNil(try ProfileStore.load(path: path, expectedBoard: nil)?.shake)
    }

    func testBadValuesExit64AndABadProfile65() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let cases: [([String], String)] = [
            (["hard"], "\"hard\" is not a sensitivity: use one of gentle, normal, firm, or default"),
            (["--threshold", "0"], "--threshold 0.0 must be more than 0 and at most 16 g"),
            (["--threshold", "20"], "--threshold 20.0 must be more than 0 and at most 16 g"),
            (["--min-reversals", "0"], "--min-reversals 0 must be an integer from 1 to 20"),
            (["--min-fraction", "1.5"], "--min-fraction 1.5 must be a fraction from 0 to 1"),
            (["default", "--cooldown", "100"], "`default` takes no other option"),
        ]
        for (arguments, message) in cases {
            let r = try CLIRunner.run(["profile", "shake"] + arguments + ["--profile", path])
            XCTAssertEqual(r.status, 64, "\(arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        try Data(#"{"schemaVersion": 1, "board": {"#.utf8).write(to: URL(fileURLWithPath: path))
        let corrupt = try CLIRunner.run(["profile", "shake", "gentle", "--profile", path])
        XCTAssertEqual(corrupt.status, 65, corrupt.stderr)
        XCTAssertEqual(String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self), #"{"schemaVersion": 1, "board": {"#,
                       "a corrupt profile is not overwritten")
    }

    func testRunsStartupLineShowsTheSensitivity() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let before = try CLIRunner.run(["run", "--duration", "0.1", "--profile", path])
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertTrue(before.stderr.contains("tiltboard: running simulated MPU-6050 board at 100 Hz for 0.1 s, shake sensitivity normal (0.8 g)\n"), before.stderr)
        XCTAssertEqual(try CLIRunner.run(["profile", "shake", "gentle", "--profile", path]).status, 0)
        let after = try CLIRunner.run(["run", "--duration", "0.1", "--profile", path])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(after.stderr.contains(", shake sensitivity gentle (0.6 g)\n"), after.stderr)
        // `shake --threshold` wins over the profile for its run.
        let shake = try CLIRunner.run(["shake", "--duration", "3", "--threshold", "2.5", "--profile", path, "--json"])
        XCTAssertEqual(shake.status, 0, shake.stderr)
        XCTAssertEqual(shake.stdout, "", "the built-in 2 g shake stays under 2.5 g")
    }
}
