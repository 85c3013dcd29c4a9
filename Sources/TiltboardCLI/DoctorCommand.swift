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
                            clock: clock, backend: try CommandBoard.backend(for: board, clock: clock, devicesBelow: systemRoot),
                            advice: Advice.doctorFix(for:))
        let checks = doctor.run()
        let code: Int32
        switch Doctor.firstFailure(checks) {
        case nil: code = SysExit.ok
        case .permission?: code = SysExit.code(for: .permissionDenied)
        case .unavailable?: code = SysExit.code(for: .unavailable)
        }
        if json {
            struct Report: Encodable { var checks: [DoctorCheck]; var exitCode: Int32 }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Console.out(Array(try encoder.encode(Report(checks: checks, exitCode: code))) + [0x0A])
        } else {
            for check in checks {
                let mark = check.status == .pass ? "✓" : check.status == .fail ? "✗" : "·"
                Console.out("\(mark) \(check.detail)\(check.fix.map { " — fix: \($0)" } ?? "")\n")
            }
            let failed = checks.filter { $0.status == .fail }.count
            Console.out(failed == 0 ? "doctor: no problems found in \(checks.count) checks\n"
                                    : "doctor: \(failed) of \(checks.count) checks failed\n")
        }
        if code != SysExit.ok { throw ExitCode(code) }
    }
}
