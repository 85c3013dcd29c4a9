import Foundation
import Tiltboard
import TiltboardCore
import TiltboardLinux

/// `sudo tiltboard calibrate --service`: calibrates the board of the installed service.
///
/// The board is the one in the service's settings (`TILTBOARD_BOARD` in
/// /etc/tiltboard/tiltboard.conf) and the profile lands where the service reads it
/// ($STATE_DIRECTORY = /var/lib/tiltboard), written by the service's own user (the owner of that
/// folder), so the service can read it and nothing else is touched. A running service holds the
/// sensor and the motor: it is stopped for the capture and started again afterwards, whatever the
/// capture's outcome.
///
/// With an instance name (`--instance player2`), the board is the one of that instance of the
/// template units, tiltboard@player2.service or tiltboard-serve@player2.service, set in
/// /etc/tiltboard/player2.conf, and only that instance is stopped and started again.
struct ServiceCalibration {
    /// The units that may be running the board, as packaging/ installs them.
    static let units = ["tiltboard.service", "tiltboard-serve.service"]

    /// `/`, or a folder standing for it (tests).
    var root: String
    /// The instance of the template units, or nil for the single service.
    var instance: String? = nil
    /// calibrate's own arguments, `--service`, `--instance` and `--service-root` left out.
    var arguments: [String]

    /// The units that may be running this board: the instance's, or the single service's.
    var units: [String] {
        guard let instance else { return Self.units }
        return ["tiltboard@\(instance).service", "tiltboard-serve@\(instance).service"]
    }

    var settingsPath: String { root + "/etc/tiltboard/\(instance ?? "tiltboard").conf" }

    /// Whether `name` can be an instance: a unit name's instance part (systemd.unit(5) allows
    /// letters, digits and `:-_.\\`) that is also a plain file name in /etc/tiltboard, so no `/`,
    /// no leading `.` or `-`, no escapes, and at most 64 characters.
    static func isInstanceName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64 else { return false }
        func plain(_ c: Unicode.Scalar) -> Bool { c.isASCII && (("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)) }
        return plain(first) && name.unicodeScalars.allSatisfy { plain($0) || $0 == "-" || $0 == "_" || $0 == "." }
    }

    var stateDirectory: String { root + "/var/lib/tiltboard" }

    func run() throws -> Int32 {
        guard Subprocess.effectiveUser == 0 else {
            throw CLIError(message: "calibrate --service stops and starts the service and writes its profile as its user: run it as root (sudo tiltboard calibrate --service)",
                           category: .permissionDenied)
        }
        let board = try boardPath()
        guard let owner = Subprocess.owner(of: stateDirectory) else {
            throw CLIError(message: "the service's state folder \(stateDirectory) does not exist: is the tiltboard package installed? (sudo apt install --reinstall tiltboard)",
                           category: .unavailable)
        }
        guard let executable = Subprocess.ownExecutable() else {
            throw CLIError(message: "cannot find this program's own executable (/proc/self/exe)", category: .unavailable)
        }
        // What setpriv would fail on, found before anything stops: its own message and exit
        // status would otherwise be all the user sees.
        guard Subprocess.userName(of: owner.uid) != nil else {
            throw CLIError(message: "the service's state folder \(stateDirectory) belongs to uid \(owner.uid), which has no entry in the password database, so nothing can run as the service's user: give the folder back to it (sudo chown -R tiltboard:tiltboard \(stateDirectory)) or reinstall the package (sudo apt install --reinstall tiltboard)",
                           category: .unavailable)
        }
        for tool in ["systemctl", "setpriv"] where Subprocess.executablePath(of: tool) == nil {
            throw CLIError(message: "calibrate --service needs \(tool), which is not on the PATH (\(tool == "setpriv" ? "sudo apt install util-linux" : "the service runs under systemd"))",
                           category: .unavailable)
        }
        let running = units.filter { Subprocess.run(["systemctl", "is-active", "--quiet", $0], quiet: true) == 0 }
        for unit in running {
            guard Subprocess.run(["systemctl", "stop", unit]) == 0 else {
                throw CLIError(message: "could not stop \(unit) for the calibration (systemctl stop \(unit) failed); see journalctl -u \(unit)",
                               category: .unavailable)
            }
            Console.note("\(unit) stopped for the calibration; it starts again afterwards")
        }
        if running.isEmpty {
            Console.note("\(instance.map { "tiltboard@\($0)" } ?? "the service") is not running: the profile is saved for its next start")
        }

        var environment = ProcessInfo.processInfo.environment
        environment["STATE_DIRECTORY"] = stateDirectory
        let child = Subprocess.start(["setpriv", "--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--init-groups", "--",
                                      executable, "calibrate"] + arguments + ["--board", board],
                                     environment: environment)
        // Ctrl-C reaches the capture itself (the terminal's process group); other stops are passed on.
        try SignalWatcher.shared.start()
        SignalWatcher.shared.onStop { signal in if signal != SIGINT { child?.send(signal) } }
        let status = child?.wait()

        var failedStarts: [String] = []
        for unit in running {
            if Subprocess.run(["systemctl", "start", unit]) == 0 {
                Console.note("\(unit) started again")
            } else {
                failedStarts.append(unit)
            }
        }
        guard let status else {
            throw CLIError(message: "cannot start setpriv (util-linux) to calibrate as the service's user", category: .unavailable)
        }
        if let unit = failedStarts.first {
            throw CLIError(message: "\(unit) did not start again (systemctl start \(unit) failed); see journalctl -u \(unit)",
                           category: .unavailable)
        }
        if Self.setprivFailures.contains(status) {
            throw CLIError(message: "setpriv could not run the calibration as the service's user (uid \(owner.uid)): it exited \(status) (its own message is above)",
                           category: .unavailable)
        }
        return status
    }

    /// The statuses setpriv (util-linux `sys-utils/setpriv.c`) exits with when it fails itself:
    /// 1 for its own errors (a user it cannot find, a bad option), 126 and 127 when the program
    /// cannot be run. tiltboard never exits with these (its statuses are sysexits' and 128 +
    /// a signal), so they mean the calibration never ran.
    static let setprivFailures: Set<Int32> = [1, 126, 127]

    /// `TILTBOARD_BOARD` from the service's settings, an absolute path.
    func boardPath() throws -> String {
        let bytes: [UInt8]?
        do {
            bytes = try AtomicFile.read(path: settingsPath, maxBytes: 1 << 20)
        } catch {
            throw CLIError(message: "cannot read the service's settings: \(Advice.message(for: error))",
                           category: (error as? CategorizedError)?.category ?? .unavailable)
        }
        guard let bytes else {
            if let instance {
                throw CLIError(message: "no settings for tiltboard@\(instance) at \(settingsPath): make them from an example (sudo cp /usr/share/tiltboard/examples/player1.conf \(settingsPath)) and set its board, UDP port and page port",
                               category: .unavailable)
            }
            throw CLIError(message: "no service settings at \(settingsPath): is the tiltboard package installed? (sudo apt install --reinstall tiltboard)",
                           category: .unavailable)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let value = Self.setting("TILTBOARD_BOARD", in: text), !value.isEmpty else {
            throw CLIError(message: "\(settingsPath) sets no TILTBOARD_BOARD: add the board file's path, e.g. TILTBOARD_BOARD=/usr/share/tiltboard/boards/mpu6050.json",
                           category: .invalidData)
        }
        guard value.hasPrefix("/") else {
            throw CLIError(message: "TILTBOARD_BOARD in \(settingsPath) must be an absolute path, got \(clipped(value))",
                           category: .invalidData)
        }
        return value
    }

    /// The last assignment of `key` in an EnvironmentFile= (systemd.exec(5)): `KEY=VALUE` lines,
    /// `#` and `;` comments, the value optionally in single or double quotes.
    static func setting(_ key: String, in text: String) -> String? {
        var found: String?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), !line.hasPrefix(";"), let equals = line.firstIndex(of: "=") else { continue }
            guard line[..<equals].trimmingCharacters(in: .whitespaces) == key else { continue }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            found = value
        }
        return found
    }
}
