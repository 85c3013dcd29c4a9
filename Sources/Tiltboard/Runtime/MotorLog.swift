#if canImport(Glibc)
import Glibc
#endif
import TiltboardLinux

/// Appends each motor line change to a file as `<seconds> <0|1>`, one line per change, so another
/// program can watch a simulated motor (`"motorLog"` in a simulated board's settings).
package final class MotorLog: Sendable {
    private let file: AppendOnlyFile
    /// What a crash appends while the motor is on (`CrashFailSafe`).
    private let crash: CrashLogRecord?
    package var path: String { file.path }

    /// `monotonic`: the motor runs on the real clock (CLOCK_MONOTONIC), which the crash handler
    /// reads for the time of its switch-off line; otherwise it repeats the last change's time.
    package init(path: String, monotonic: Bool = true) throws {
        do {
            file = try AppendOnlyFile(path: path)
        } catch let error as AtomicFileError {
            throw MotorLogError(path: path, errno: error.errno)
        }
        crash = file.crashRecord(monotonic: monotonic)
    }

    /// Claims the log for this process's line; false when another process's line holds it.
    package func claim() -> Bool { file.lockExclusively() }

    /// True when the log's last line says the motor is on: the process writing it was killed
    /// (SIGKILL) with the motor running.
    package var lastLevelWasActive: Bool {
        guard let bytes = try? AtomicFile.read(path: path) else { return false }
        let last = bytes.split(separator: UInt8(ascii: "\n")).last
        return last?.last == UInt8(ascii: "1")
    }

    /// Appends one change. A failed write stops the command like any failed output (`OutputFailure`).
    /// After a crash began (`CrashFailSafe.tripped`) the motor stays off: a change to on is not
    /// recorded, and one recorded as the crash began is followed by its switch-off.
    package func append(t: Double, active: Bool) {
        crash?.record(active: active, t: t)
        if active && CrashFailSafe.tripped { return }
        write(t: t, active: active)
        if active && CrashFailSafe.tripped { write(t: t, active: false) }
    }

    private func write(t: Double, active: Bool) {
        if let code = file.append("\(Self.format(t)) \(active ? 1 : 0)\n") {
            OutputFailure.report(.motorLog(path: path), errno: code)
        }
    }

    static func format(_ t: Double) -> String {
        let micros = Int64((t * 1e6).rounded())
        let whole = micros / 1_000_000, frac = abs(micros % 1_000_000)
        let fracText = String(frac)
        return "\(whole).\(String(repeating: "0", count: 6 - fracText.count))\(fracText)"
    }
}

/// A motor log (`simulation.motorLog`) that cannot be opened: named as the motor log (not as the
/// board file that names it), with the exit status of its file problem (`FileProblem`).
package struct MotorLogError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    /// The kernel's reason for refusing to open it for appending.
    package var errno: Int32

    package init(path: String, errno: Int32) { self.path = path; self.errno = errno }

    package var problem: FileProblem { FileProblem(errno: errno) }

    /// The structured form for logs; the program words it.
    package var description: String { "MotorLogError(path: \(shownPath(path)), errno: \(errno))" }
}
