import ArgumentParser
import Foundation
import Tiltboard
import TiltboardCore
import TiltboardLinux

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check everything the board needs on this machine, one line per check.",
        discussion: """
        I²C enabled (/dev/i2c-N, dtparam=i2c_arm=on, i2c-dev), the bus clock from the device tree \
        against the board's rate and sample size, permission on the bus (groups, the udev rule), \
        whether a kernel driver (a device-tree overlay's) owns the board's address, what answers \
        there and whether it is the expected chip (clones named), the motor and interrupt lines \
        free or held (by whom), realtime limits, and the profile (present, valid, for this board). \
        ✓ passed, ✗ failed (with the fix), · optional and not set up.

        Exits 0 when nothing failed, else as the first failure dictates: 77 for a permission, \
        69 for anything else. --json prints one object: {"checks": [{"id", "status", "detail", \
        "fix", "cause"}], "exitCode": N}.
        """
    )

    @OptionGroup var boardOptions: BoardOptions

    @Flag(help: "One JSON object with every check.")
    var json = false

    /// Reads /dev, /sys, /proc and /etc below this folder instead of the real ones (tests).
    @Option(name: .customLong("system-root"), help: .hidden)
    var systemRoot = ""

    func run() throws {
        let board = try boardOptions.loadBoard()
        let clock = try CommandClock.clock(for: board)
        let doctor = Doctor(board: board, system: SystemInspector(root: systemRoot),
                            profilePath: boardOptions.profile ?? ProfileStore.defaultPath(boardName: board.name),
                            clock: clock, backend: try CommandBoard.backend(for: board, clock: clock, devicesBelow: systemRoot))
        let found = doctor.run()
        let checks = found.map(Self.line(for:))
        let code: Int32
        switch Doctor.firstFailure(found) {
        case nil: code = SysExit.ok
        case .permission?: code = SysExit.code(for: .permissionDenied)
        case .unavailable?: code = SysExit.code(for: .unavailable)
        }
        if json {
            Console.out(try Report(checks: checks, exitCode: code).jsonLine())
        } else {
            for check in checks { Console.out(check.text + "\n") }
            let failed = checks.filter { $0.status == .fail }.count
            Console.out(failed == 0 ? "doctor: no problems found in \(checks.count) checks\n"
                                    : "doctor: \(failed) of \(checks.count) checks failed\n")
        }
        if code != SysExit.ok { throw ExitCode(code) }
    }

    /// What `--json` prints (docs/schema/doctor.schema.json).
    struct Report: Encodable {
        var checks: [Line]
        var exitCode: Int32

        /// One line: sorted keys and a newline.
        func jsonLine() throws -> [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Array(try encoder.encode(self)) + [0x0A]
        }
    }

    /// One check as the tool prints it, and as `--json` reports it.
    struct Line: Encodable, Equatable {
        var id: String
        var status: DoctorCheck.Status
        /// What was found, one line.
        var detail: String
        /// What to do about it; absent when nothing is to be done.
        var fix: String?
        var cause: DoctorCheck.Cause?

        /// The line as printed: ✓, ✗ or ·, what was found, and the fix after it.
        var text: String {
            let mark = status == .pass ? "✓" : status == .fail ? "✗" : "·"
            return "\(mark) \(detail)\(fix.map { " — fix: \($0)" } ?? "")"
        }
    }

    static func line(for check: DoctorCheck) -> Line {
        Line(id: check.id, status: check.status, detail: detail(check.finding),
             fix: Advice.doctorFix(for: check.finding), cause: check.cause)
    }

    /// What a check found, in one line.
    static func detail(_ finding: DoctorFinding) -> String {
        switch finding {
        case .simulatedBoard:
            return "simulated board: no I²C bus needed"
        case let .busPresent(device):
            return "I²C enabled: \(device) is present"
        case let .i2cDevNotLoaded(device, adapter):
            return "I²C enabled: adapter i2c-\(adapter) exists but \(device) does not: the i2c-dev module is not loaded"
        case let .busMissing(device, present, _, _):
            let others = present.isEmpty ? "no /dev/i2c-* at all" : "present: \(present.joined(separator: ", "))"
            return "I²C enabled: \(device) not found (\(others))"
        case let .busClockUnknown(adapter, rateHz):
            return "bus clock: not in the device tree for i2c-\(adapter); assuming it suits \(hertz(rateHz))"
        case let .busClock(hz, file, chip, rateHz, load, limit):
            let found = "bus clock: \(hz / 1000) kHz (\(file)); \(hertz(rateHz)) × \(chip.sampleBytes)-byte samples use \(Int((load * 100).rounded())) % of the bus"
            switch limit {
            case nil: return found
            case let .aboveChipMaximum(maxHz)?: return found + "; the \(chip.partName) takes at most \(maxHz / 1000) kHz"
            case let .rateAboveAdvice(maxRateHz, fastHz)?:
                return found + "; the \(chip.partName) data sheet advises at most \(hertz(maxRateHz)) below \(fastHz / 1000) kHz"
            case .overloaded?: return found + "; more than half leaves no room"
            }
        case let .busOpens(device):
            return "I²C permission: \(device) can be opened for reading and writing"
        case let .busOpenFailed(device, errno, reason):
            return "I²C permission: \(device): \(reason) (errno \(errno))"
        case let .busPermissionDenied(device, reason, _, _):
            return "I²C permission: \(device): \(reason)"
        case let .noKernelDriver(address, bus):
            return "kernel driver: none bound to \(address.hex) on \(bus)"
        case let .kernelDriverBound(binding, address, bus):
            return "kernel driver: \(binding.driver) owns \(address.hex) on \(bus)"
        case let .sensorFound(identity, chip, address, bus):
            if identity.warning != nil {
                return "sensor: \(identity.part) at \(address.hex) on \(bus): a clone, used as an \(chip.partName) with a warning"
            }
            return "sensor: \(identity.part) at \(address.hex) on \(bus) (ID \(identity.chipID.hex))"
        case let .sensorNotAnswering(_, address, bus):
            return "sensor: nothing answers at \(address.hex) on \(bus)"
        case let .busFailed(error):
            return "sensor: \(error.description)"
        case let .sensorFailed(error):
            return "sensor: \(error.description)"
        case let .sensorOther(text):
            return "sensor: \(text)"
        case let .lineSimulated(role):
            return "\(title(role)): simulated"
        case let .lineFree(role, name):
            return "\(title(role)): \(name) is free for \(role == .motor ? "the motor" : "the sensor's INT pin")"
        case let .lineHeld(role, state):
            return "\(title(role)): \(SystemInspector.busyMessage(state))"
        case let .lineFailed(role, error):
            return "\(title(role)): \(error.description)"
        case let .lineOther(role, text):
            return "\(title(role)): \(text)"
        case .noInterruptLine:
            return "interrupt line: none in the board file (only --wake-on-motion needs one)"
        case let .realtime(limits):
            let memlock = limits.memlockBytes.map { "\($0 / 1024) KiB" } ?? "unlimited"
            if limits.allowed {
                return "realtime: --realtime can have SCHED_FIFO (\(limits.isRoot ? "root" : "rtprio \(limits.rtprio)"), memlock \(memlock))"
            }
            return "realtime: not permitted (rtprio 0, memlock \(memlock)); only --realtime needs it"
        case let .profileMissing(path):
            return "profile: none at \(path) yet"
        case let .profileFound(path, createdAt, sensorCalibration):
            return "profile: \(path) (neutral pose from \(createdAt)\(sensorCalibration ? ", sensor calibration" : ""))"
        case let .profileInvalid(error):
            return error.description
        case let .profileUnreadable(path, text):
            return "profile \(path): \(text)"
        }
    }

    private static func title(_ role: DoctorFinding.LineRole) -> String {
        role == .motor ? "motor line" : "interrupt line"
    }

    private static func hertz(_ hz: Double) -> String {
        hz == hz.rounded() ? "\(Int(hz)) Hz" : "\(hz) Hz"
    }
}
