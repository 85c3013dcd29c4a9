import Foundation
import XCTest
@testable import TiltboardCLI

/// `calibrate --service` against a stand-in for `/` (`--service-root`) and a `systemctl` that
/// records its calls, and the journal's priority prefixes. The real units under a real systemd
/// are checked by Tests/systemd/.
final class ServiceCalibrationTests: XCTestCase {
    /// A stand-in root: the service's settings naming a simulated board, its state folder owned by
    /// `nobody` (as /var/lib/tiltboard is owned by the service's user), and a `systemctl` on PATH
    /// that logs each call and reports `activeUnits` as running.
    private struct ServiceRoot {
        var folder: String
        var root: String { folder + "/root" }
        var state: String { root + "/var/lib/tiltboard" }
        var calls: String { folder + "/systemctl.calls" }
        var environment: [String: String] { ["PATH": folder + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")] }

        init(_ test: XCTestCase, activeUnits: [String], settings: String? = nil, settingsName: String = "tiltboard", script: String = "flat",
             stateOwner: uid_t = 65534) throws {
            folder = try makeScratchFolder(test)
            let fm = FileManager.default
            for dir in [folder, root + "/etc/tiltboard", state, folder + "/bin"] {
                try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            // The calibration runs as the state folder's owner: it must reach the board and the binary.
            for dir in [folder, root, root + "/var", root + "/var/lib"] { chmod(dir, 0o755) }
            XCTAssertEqual(chown(state, stateOwner, stateOwner), 0)
            chmod(state, 0o750)
            let board = try SimBoardFile.write(in: folder, script: script)
            chmod(board.path, 0o644)
            try (settings ?? "# settings\nTILTBOARD_BOARD=\"\(board.path)\"\nTILTBOARD_RUN_OPTIONS=--udp 127.0.0.1:7700\n")
                .write(toFile: root + "/etc/tiltboard/\(settingsName).conf", atomically: true, encoding: .utf8)
            let active = activeUnits.map { "\"\($0)\"" }.joined(separator: " ")
            let systemctl = folder + "/bin/systemctl"
            try """
            #!/bin/sh
            echo "$*" >> '\(calls)'
            if [ "$1" = is-active ]; then
                for unit in \(active); do [ "$3" = "$unit" ] && exit 0; done
                exit 3
            fi
            exit 0
            """.write(toFile: systemctl, atomically: true, encoding: .utf8)
            chmod(systemctl, 0o755)
        }

        func systemctlCalls() -> [String] {
            ((try? String(contentsOfFile: calls, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    private func calibrate(_ root: ServiceRoot, _ extra: [String] = []) throws -> CLIRunner.Result {
        // The calibration runs this executable as the state folder's owner.
        try CLIRunner.run(["calibrate", "--service", "--service-root", root.root, "--yes"] + extra, environment: root.environment,
                          stagedIn: root.folder)
    }

    func testARunningServiceIsStoppedCalibratedAsItsUserAndStartedAgain() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: ["tiltboard.service"])
        let r = try calibrate(service)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(service.systemctlCalls(), ["is-active --quiet tiltboard.service", "is-active --quiet tiltboard-serve.service",
                                                  "stop tiltboard.service", "start tiltboard.service"])
        let profile = service.state + "/profiles/simulated-test-board.json"
        XCTAssertTrue(r.stdout.hasPrefix("neutral pose saved to \(profile)\n"), r.stdout)
        var info = stat()
        XCTAssertEqual(stat(profile, &info), 0)
        // Written by the service's user, so the service can read it.
        XCTAssertEqual(info.st_uid, 65534)
        XCTAssertTrue(r.stderr.hasPrefix("tiltboard: tiltboard.service stopped for the calibration; it starts again afterwards\n"), r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("tiltboard: tiltboard.service started again\n"), r.stderr)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: profile))) as? [String: Any]
        XCTAssertNotNil(saved?["neutral"], "\(saved ?? [:])")
    }

    func testAStoppedServiceStaysStoppedAndTheOptionsReachTheCalibration() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: [])
        let r = try calibrate(service, ["--zero"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(service.systemctlCalls(), ["is-active --quiet tiltboard.service", "is-active --quiet tiltboard-serve.service"])
        XCTAssertEqual(r.stderr, "tiltboard: the service is not running: the profile is saved for its next start\n")
        XCTAssertEqual(r.stdout, "neutral pose reset to level in \(service.state)/profiles/simulated-test-board.json\n")
    }

    func testTheServeVariantIsTheOneRestartedWhenItRuns() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: ["tiltboard-serve.service"])
        let r = try calibrate(service)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Array(service.systemctlCalls().dropFirst(2)), ["stop tiltboard-serve.service", "start tiltboard-serve.service"])
    }

    func testAnInstanceIsCalibratedFromItsOwnSettingsAndOnlyItIsStoppedAndStarted() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: ["tiltboard.service", "tiltboard@player1.service", "tiltboard@player2.service"],
                                      settingsName: "player2")
        // The single service's settings name a board that is not there: reading them would fail.
        try "TILTBOARD_BOARD=/nonexistent/board.json\n".write(toFile: service.root + "/etc/tiltboard/tiltboard.conf", atomically: true, encoding: .utf8)
        let r = try calibrate(service, ["--instance", "player2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(service.systemctlCalls(), ["is-active --quiet tiltboard@player2.service", "is-active --quiet tiltboard-serve@player2.service",
                                                  "stop tiltboard@player2.service", "start tiltboard@player2.service"])
        let profile = service.state + "/profiles/simulated-test-board.json"
        XCTAssertTrue(r.stdout.hasPrefix("neutral pose saved to \(profile)\n"), r.stdout)
        var info = stat()
        XCTAssertEqual(stat(profile, &info), 0)
        XCTAssertEqual(info.st_uid, 65534)
        XCTAssertTrue(r.stderr.hasPrefix("tiltboard: tiltboard@player2.service stopped for the calibration; it starts again afterwards\n"), r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("tiltboard: tiltboard@player2.service started again\n"), r.stderr)
    }

    func testAStoppedInstanceStaysStoppedAndItsServeVariantIsTheOneRestartedWhenItRuns() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let stopped = try ServiceRoot(self, activeUnits: ["tiltboard.service", "tiltboard-serve@player2.service"], settingsName: "player1")
        let r = try calibrate(stopped, ["--instance=player1", "--zero"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(stopped.systemctlCalls(), ["is-active --quiet tiltboard@player1.service", "is-active --quiet tiltboard-serve@player1.service"])
        XCTAssertEqual(r.stderr, "tiltboard: tiltboard@player1 is not running: the profile is saved for its next start\n")
        XCTAssertEqual(r.stdout, "neutral pose reset to level in \(stopped.state)/profiles/simulated-test-board.json\n")

        let serving = try ServiceRoot(self, activeUnits: ["tiltboard-serve@player2.service"], settingsName: "player2")
        let s = try calibrate(serving, ["--zero", "--instance", "player2"])
        XCTAssertEqual(s.status, 0, s.stderr)
        XCTAssertEqual(Array(serving.systemctlCalls().dropFirst(2)), ["stop tiltboard-serve@player2.service", "start tiltboard-serve@player2.service"])
    }

    func testAnInstanceWithoutSettingsSaysHowToMakeThemBeforeAnythingStops() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: ["tiltboard@player3.service"])
        let r = try calibrate(service, ["--instance", "player3"])
        XCTAssertEqual(r.status, 69, r.stderr)
        let settings = service.root + "/etc/tiltboard/player3.conf"
        XCTAssertEqual(r.stderr, "tiltboard: error: no settings for tiltboard@player3 at \(settings): make them from an example (sudo cp /usr/share/tiltboard/examples/player1.conf \(settings)) and set its board, UDP port and page port\n")
        XCTAssertEqual(service.systemctlCalls(), [])
    }

    func testInstanceGoesWithServiceAndIsAPlainName() throws {
        let folder = try makeScratchFolder(self)
        for (arguments, message) in [
            (["--instance", "player2"], "--instance only goes with --service"),
            (["--service", "--instance", "../player2"], "--instance must be a service instance's name: 1…64 letters, digits, '-', '_' or '.', starting with a letter or a digit, got ../player2"),
            (["--service", "--instance", ""], "--instance must be a service instance's name"),
            (["--service", "--instance", "player 2"], "--instance must be a service instance's name"),
            (["--service", "--instance", "player2", "--board", folder + "/board.json"],
             "--service calibrates the board in /etc/tiltboard/player2.conf into the service's profile: drop --board and --profile"),
        ] {
            let r = try CLIRunner.run(["calibrate"] + arguments + ["--service-root", folder])
            XCTAssertEqual(r.status, 64, "\(arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(arguments)")
        }
        XCTAssertTrue(ServiceCalibration.isInstanceName("player_2.left-A"))
        XCTAssertFalse(ServiceCalibration.isInstanceName(".hidden"))
        XCTAssertFalse(ServiceCalibration.isInstanceName(String(repeating: "p", count: 65)))
        XCTAssertFalse(ServiceCalibration.isInstanceName("plåyer"))
    }

    func testAFailedCaptureStillStartsTheServiceAgainAndKeepsItsStatus() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        // A board that never holds still: the capture gives up after --timeout (75).
        let service = try ServiceRoot(self, activeUnits: ["tiltboard.service"], script: "walk")
        let r = try calibrate(service, ["--timeout", "3"])
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: service.state + "/profiles/simulated-test-board.json"))
        XCTAssertEqual(service.systemctlCalls().suffix(2), ["stop tiltboard.service", "start tiltboard.service"])
    }

    func testSettingsWithoutAnAbsoluteBoardAreRefusedBeforeAnythingStops() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        for (settings, message) in [("TILTBOARD_RUN_OPTIONS=\n", "sets no TILTBOARD_BOARD"),
                                    ("TILTBOARD_BOARD=boards/mpu6050.json\n", "must be an absolute path, got boards/mpu6050.json")] {
            let service = try ServiceRoot(self, activeUnits: ["tiltboard.service"], settings: settings)
            let r = try calibrate(service)
            XCTAssertEqual(r.status, 65, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("tiltboard: error: "), r.stderr)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertEqual(service.systemctlCalls(), [])
        }
    }

    func testTheServiceCalibrationKeepsTheSectionsItDoesNotOwn() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: [])
        let profile = service.state + "/profiles/simulated-test-board.json"
        try FileManager.default.createDirectory(atPath: service.state + "/profiles", withIntermediateDirectories: true)
        let shake = #"{"level":"firm"}"#, future = #"[1, 2.50]"#
        try """
        {"board": {"address": "0x68", "bus": "simulated", "chip": "mpu6050", "chipID": "0x68", "name": "simulated test board"},
         "createdAt": "2020-01-01T00:00:00Z", "neutral": {"clamped": false, "meanRawG": [0, 0, 1], "rotation": {"w": 1, "x": 0, "y": 0, "z": 0}, "tiltDeg": 0},
         "noiseMg": [0, 0, 0], "sampleCount": 0, "schemaVersion": 1, "shake": \(shake), "zzFuture": \(future)}
        """.write(toFile: profile, atomically: false, encoding: .utf8)
        for path in [service.state + "/profiles", profile] { XCTAssertEqual(chown(path, 65534, 65534), 0) }
        let r = try calibrate(service)
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try String(contentsOfFile: profile, encoding: .utf8)
        XCTAssertTrue(text.contains("\"shake\" : \(shake),\n"), text)
        XCTAssertTrue(text.contains("\"zzFuture\" : \(future)\n"), text)
        XCTAssertFalse(text.contains("2020-01-01T00:00:00Z"), "the capture wrote its own sections: \(text)")
    }

    func testAStateFolderOwnerWithoutAUserIsAnErrorLineBeforeAnythingStops() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        // setpriv --init-groups needs a user in the password database; 54321 has none here.
        let service = try ServiceRoot(self, activeUnits: ["tiltboard.service"], stateOwner: 54321)
        let r = try calibrate(service)
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: the service's state folder \(service.state) belongs to uid 54321, which has no entry in the password database, so nothing can run as the service's user: give the folder back to it (sudo chown -R tiltboard:tiltboard \(service.state)) or reinstall the package (sudo apt install --reinstall tiltboard)\n")
        XCTAssertEqual(service.systemctlCalls(), [], "nothing stopped")
    }

    func testAFailingSetprivIsAnErrorLineAndTheServiceStartsAgain() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let service = try ServiceRoot(self, activeUnits: ["tiltboard.service"])
        // A setpriv that fails as util-linux's does on its own errors: its message, exit 1.
        let setpriv = service.folder + "/bin/setpriv"
        try "#!/bin/sh\necho 'setpriv: something it cannot do' >&2\nexit 1\n".write(toFile: setpriv, atomically: true, encoding: .utf8)
        chmod(setpriv, 0o755)
        let r = try calibrate(service)
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertTrue(r.stderr.hasSuffix("tiltboard: error: setpriv could not run the calibration as the service's user (uid 65534): it exited 1 (its own message is above)\n"), r.stderr)
        XCTAssertEqual(service.systemctlCalls().suffix(2), ["stop tiltboard.service", "start tiltboard.service"])
    }

    func testWithoutTheServiceInstalledItSaysSo() throws {
        guard getuid() == 0 else { throw XCTSkip("calibrate --service needs root") }
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["calibrate", "--service", "--service-root", folder, "--yes"])
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: no service settings at \(folder)/etc/tiltboard/tiltboard.conf: is the tiltboard package installed? (sudo apt install --reinstall tiltboard)\n")
    }

    func testItNeedsRootAndRefusesABoardOfItsOwn() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["calibrate", "--service", "--board", folder + "/board.json"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--service calibrates the board in /etc/tiltboard/tiltboard.conf into the service's profile: drop --board and --profile"), r.stderr)

        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("needs root and setpriv") }
        chmod(folder, 0o755)
        let asUser = try CLIRunner.shell(#"exec setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" calibrate --service --yes"#, in: folder,
                                         environment: ["TB": try CLIRunner.binary(stagedIn: folder)])
        XCTAssertEqual(asUser.status, 77, asUser.stderr)
        XCTAssertEqual(asUser.stderr, "tiltboard: error: calibrate --service stops and starts the service and writes its profile as its user: run it as root (sudo tiltboard calibrate --service)\n")
    }

    // MARK: - The journal

    /// stderr to a file, with $JOURNAL_STREAM naming that file (as systemd names its stream) or another.
    private func stderrAsJournal(_ arguments: String, named: Bool) throws -> String {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.shell("""
            : > journal; : > other
            JOURNAL_STREAM=$(stat -c %d:%i \(named ? "journal" : "other")) "$TB" \(arguments) 2> journal
            cat journal >&2
            """, in: folder, environment: ["TILTBOARD_CLOCK": "virtual"])
        return r.stderr
    }

    func testLinesToTheJournalCarryTheirPriority() throws {
        let error = try stderrAsJournal("read --board missing.json", named: true)
        XCTAssertEqual(error, "<3>tiltboard: error: board file missing.json: no such file (see Boards/ for examples, or omit --board to use the simulated board)\n")
        let notes = try stderrAsJournal("read --count 1", named: true)
        XCTAssertTrue(notes.hasPrefix("<6>tiltboard: no --board given: using the built-in simulated MPU-6050 board"), notes)
        XCTAssertTrue(notes.split(separator: "\n").allSatisfy { $0.hasPrefix("<6>tiltboard: ") }, notes)
    }

    func testAJournalStreamOfAnotherFileLeavesLinesAsTheyAre() throws {
        let error = try stderrAsJournal("read --board missing.json", named: false)
        XCTAssertEqual(error, "tiltboard: error: board file missing.json: no such file (see Boards/ for examples, or omit --board to use the simulated board)\n")
    }
}
