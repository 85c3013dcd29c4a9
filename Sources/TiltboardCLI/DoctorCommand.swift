import ArgumentParser
import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
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

        With --board once per player (boards that run together), every board is checked in turn \
        under a `player N: NAME` line (--json: one object per board, with "player" and "board"), \
        the bus share counts every board on the same bus, and the exit status is the first \
        failing board's.

        --motor-noise runs the wiring check for motor noise instead: with the board still, it \
        reads the sensor at full rate for 1 s with the motor off, then while the motor is pulsed \
        6 times (0.25 s on, 0.5 s off, within motor.maxOnMs), and counts bus errors with \
        the motor off, just after it switches and while it runs, outages, and implausible jumps \
        in the samples; each one found fails with its fix. It buzzes, so it asks first; --yes \
        starts without asking, and without a terminal to ask on it refuses (exit 64). A board \
        without a motor has nothing to check.
        """
    )

    @OptionGroup var players: PlayerBoardOptions

    @Flag(help: "One JSON object with every check.")
    var json = false

    @Flag(name: .customLong("motor-noise"),
          help: "Pulse the motor for about 6 s while reading the sensor at full rate: bus errors, outages and jumps it causes.")
    var motorNoise = false

    @Flag(help: "With --motor-noise: start without asking.")
    var yes = false

    /// Reads /dev, /sys, /proc and /etc below this folder instead of the real ones (tests).
    @Option(name: .customLong("system-root"), help: .hidden)
    var systemRoot = ""

    func validate() throws {
        if yes && !motorNoise { throw ValidationError("--yes only goes with --motor-noise (the other checks never ask)") }
        if motorNoise && players.several { throw ValidationError("--motor-noise checks one board: give one --board") }
    }

    func run() throws {
        let options = players.several ? players.board.indices.map { players.options(player: $0) } : [players.options()]
        let boards = try options.map { try $0.loadBoard() }
        var code = SysExit.ok
        var total = 0, failed = 0
        for (i, board) in boards.enumerated() {
            if players.several && !json { Console.out("player \(i + 1): \(board.name)\n") }
            let clock = try CommandClock.clock(for: board)
            let doctor = Doctor(board: board, system: SystemInspector(root: systemRoot),
                                profilePath: options[i].profile ?? ProfileStore.defaultPath(boardName: board.name),
                                clock: clock, backend: try CommandBoard.backend(for: board, clock: clock, devicesBelow: systemRoot))
            let found: [DoctorCheck]
            if motorNoise {
                guard let checks = try runMotorNoise(doctor) else { return }
                found = checks
            } else {
                found = doctor.run()
                // Once a bus, at its first board, counting every board on it.
                let sameBus = { (other: BoardDescription) in other.sensor.bus == board.sensor.bus }
                if !boards[..<i].contains(where: sameBus),
                   let share = doctor.busShare(others: boards[(i + 1)...].filter(sameBus), fifoAboveHz: RunPlan.fifoAboveHz,
                                               fifoTickHz: RunPlan.fifoTickHz), share.overWarning {
                    Console.warn(Self.busShareWarning(share))
                }
            }
            let checks = found.map(Self.line(for:))
            let boardCode: Int32
            switch Doctor.firstFailure(found) {
            case nil: boardCode = SysExit.ok
            case .permission?: boardCode = SysExit.code(for: .permissionDenied)
            case .unavailable?: boardCode = SysExit.code(for: .unavailable)
            }
            if code == SysExit.ok { code = boardCode }
            total += checks.count
            failed += checks.filter { $0.status == .fail }.count
            if json {
                let player = players.several ? i + 1 : nil
                Console.out(try Report(checks: checks, exitCode: boardCode, player: player, board: player.map { _ in board.name }).jsonLine())
            } else {
                for check in checks { Console.out(check.text + "\n") }
            }
        }
        if !json {
            Console.out(failed == 0 ? "doctor: no problems found in \(total) checks\n"
                                    : "doctor: \(failed) of \(total) checks failed\n")
        }
        if code != SysExit.ok { throw ExitCode(code) }
    }

    /// What `--json` prints (docs/schema/doctor.schema.json).
    struct Report: Encodable {
        var checks: [Line]
        var exitCode: Int32
        /// With several boards: which one (1 for the first) and its name.
        var player: Int?
        var board: String?

        /// One line: sorted keys and a newline.
        func jsonLine() throws -> [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Array(try encoder.encode(self)) + [0x0A]
        }
    }

    /// The motor-noise check, once the player agreed (nil: they did not, nothing ran).
    private func runMotorNoise(_ doctor: Doctor) throws -> [DoctorCheck]? {
        guard let section = doctor.board.motor else { return doctor.motorNoise(MotorNoiseCheck(), motor: nil) }
        let check = MotorNoiseCheck(settings: MotorNoiseCheck.Settings().fitted(to: section.cap))
        let s = check.settings
        let plan = "the motor-noise check pulses the motor \(s.pulses) times (\(decimal(s.onSeconds, 2)) s each) over about "
            + "\(decimal(s.totalSeconds, 1)) s while it reads the sensor: leave the board still, on a table"
        if !yes {
            guard RawTerminal.isTerminal(0) else {
                throw CLIError(message: "doctor --motor-noise buzzes the motor for about \(decimal(s.totalSeconds, 1)) s: "
                               + "run it at a terminal to confirm, or add --yes to start without asking", category: .invalidRequest)
            }
            try SignalWatcher.shared.start()
            guard askYes(plan) else {
                Console.note("motor-noise check cancelled: the motor was not run")
                return nil
            }
        } else {
            try SignalWatcher.shared.start()
            Console.note(plan)
        }
        let line = try doctor.backend.openMotorLine(section)
        let motor = Motor(line: line, clock: doctor.clock, cap: section.cap, announceChanges: false)
        defer { motor.shutdown() }
        return doctor.motorNoise(check, motor: line, shouldStop: { SignalWatcher.shared.stopRequested })
    }

    /// Asks on stderr and reads a line from the terminal: true for `y` or `yes`.
    private func askYes(_ plan: String) -> Bool {
        Console.note(plan)
        Console.error("start it? [y/N] ")
        var answer: [UInt8] = []
        while !SignalWatcher.shared.stopRequested {
            SignalWatcher.shared.waitForForeground(of: 0)
            switch RawTerminal.readByte(from: 0, timeoutMilliseconds: 100) {
            case .nothingYet: continue
            case .endOfInput: return false
            case let .byte(byte):
                guard byte != UInt8(ascii: "\n") else {
                    let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
                    return text == "y" || text == "yes"
                }
                if answer.count < 16 { answer.append(byte) }
            }
        }
        return false
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
            return "sensor: \(describe(error))"
        case let .sensorFailed(error):
            return "sensor: \(describe(error))"
        case let .sensorOther(text):
            return "sensor: \(text)"
        case let .lineSimulated(role):
            return "\(title(role)): simulated"
        case let .lineFree(role, name):
            return "\(title(role)): \(name) is free for \(role == .motor ? "the motor" : "the sensor's INT pin")"
        case let .lineHeld(role, state):
            return "\(title(role)): \(describe(SystemInspector.busyError(state)))"
        case let .lineFailed(role, error):
            return "\(title(role)): \(describe(error))"
        case let .lineOther(role, text):
            return "\(title(role)): \(text)"
        case .noInterruptLine:
            return "interrupt line: none in the board file (only --wake-on-motion needs one)"
        case .noMotor:
            return "motor: none in the board file, so no motor to check (shakes are only shown, rumble is not offered)"
        case let .motorNoiseMeasured(r):
            return "motor noise: \(r.samples) samples at \(hertz(r.rateHz)) over \(decimal(r.seconds, 1)) s, "
                + "the motor on for \(decimal(r.motorOnSeconds, 2)) s in \(r.pulses) pulses"
        case let .motorNoiseStopped(r):
            return "motor noise: stopped after \(decimal(r.seconds, 1)) s (\(r.samples) samples), before the check was done"
        case let .motorNoise(aspect, r):
            return motorNoiseDetail(aspect, r)
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
            return describe(error)
        case let .profileUnreadable(path, text):
            return "profile \(path): \(text)"
        }
    }

    private static func motorNoiseDetail(_ aspect: DoctorFinding.MotorNoiseAspect, _ r: MotorNoiseCheck.Report) -> String {
        let n = aspect.count(in: r)
        let errors = "\(n) bus error\(n == 1 ? "" : "s")"
        let window = "\(decimal(r.settings.switchWindowSeconds * 1000, 0)) ms"
        let found = aspect.found(in: r)
        switch aspect {
        case .idle:
            return n == 0 ? "motor off: no bus error" : "motor off: \(errors) with the motor off: the bus fails by itself"
        case .switching:
            if n == 0 { return "motor switching: no bus error within \(window) of a switch" }
            return found ? "motor switching: \(errors) within \(window) of the motor switching: its coil's voltage spike reaches the bus"
                : "motor switching: \(errors) within \(window) of a switch, no more than the rest of the time"
        case .running:
            if n == 0 { return "motor running: no bus error while it ran" }
            return found ? "motor running: \(errors) while the motor ran: its noise garbles the bus at this speed"
                : "motor running: \(errors) while it ran, no more than with the motor off"
        case .outages:
            let resets = r.resets > 0 ? ", \(r.resets) with the chip reset" : ""
            return n == 0 ? "outages: the sensor answered throughout"
                : "outages: the sensor was lost \(n) time\(n == 1 ? "" : "s") (longest \(decimal(r.longestOutageSeconds, 3)) s\(resets)): its supply sags when the motor starts"
        case .jumps:
            let limit = "\(decimal(r.settings.jumpG, 2)) g"
            return n == 0 ? "sample jumps: none over \(limit) from the neighbouring samples"
                : "sample jumps: \(n) sample\(n == 1 ? "" : "s") off by up to \(decimal(r.largestJumpG, 2)) g from both neighbours (over \(limit)): data corrupted on the wires"
        }
    }

    /// The warning for boards that take more than `BusBudget.warningShare` of their bus, and what helps.
    static func busShareWarning(_ f: BusShareFinding) -> String {
        let clock = "\(f.clockHz / 1000) kHz" + (f.clockFile == nil ? " (assumed: the device tree gives no clock-frequency)" : "")
        let what = f.boards.map { b in "\(hertz(b.rateHz)) \(b.chip.partName)" + (b.fifo ? " (FIFO ×\(b.samplesPerTick))" : "") }
            .joined(separator: " + ")
        let limit = Int((BusBudget.warningShare * 100).rounded())
        let fastest = f.boards.map { $0.chip.details.maxBusClockHz }.min() ?? f.clockHz
        var fixes = ["read in FIFO batches (sensor.fifo)", "lower sensor.rateHz"]
        if f.clockHz < fastest { fixes.append("raise the clock (dtparam=i2c_arm_baudrate=\(fastest))") }
        fixes.append("move a board to a second bus")
        return "bus share: \(what) on \(f.bus) \(f.boards.count == 1 ? "takes" : "take") \(Int((f.share * 100).rounded())) % of the bus at \(clock), more than \(limit) %"
            + " — " + fixes.dropLast().joined(separator: ", ") + " or " + fixes.last!
    }

    private static func title(_ role: DoctorFinding.LineRole) -> String {
        role == .motor ? "motor line" : "interrupt line"
    }

    private static func hertz(_ hz: Double) -> String {
        hz == hz.rounded() ? "\(Int(hz)) Hz" : "\(hz) Hz"
    }
}
