import TiltboardLinux

/// Appends each motor line change to a file as `<seconds> <0|1>`, one line per change, so another
/// program can watch a simulated motor (`"motorLog"` in a simulated board's settings).
public final class MotorLog: Sendable {
    private let file: AppendOnlyFile
    public var path: String { file.path }

    public init(path: String) throws {
        do {
            file = try AppendOnlyFile(path: path)
        } catch let error as AtomicFileError {
            throw BoardFileError(file: path, key: "simulation.motorLog", message: error.description)
        }
    }

    /// Claims the log for this process's line; false when another process's line holds it.
    public func claim() -> Bool { file.lockExclusively() }

    /// True when the log's last line says the motor is on: the process writing it was killed
    /// (SIGKILL) with the motor running.
    public var lastLevelWasActive: Bool {
        guard let bytes = try? AtomicFile.read(path: path) else { return false }
        let last = bytes.split(separator: UInt8(ascii: "\n")).last
        return last?.last == UInt8(ascii: "1")
    }

    /// Appends one change. A failed write stops the command like any failed output (`OutputFailure`).
    public func append(t: Double, active: Bool) {
        if let code = file.append("\(Self.format(t)) \(active ? 1 : 0)\n") {
            OutputFailure.report("motor log \(path)", errno: code)
        }
    }

    static func format(_ t: Double) -> String {
        let micros = Int64((t * 1e6).rounded())
        let whole = micros / 1_000_000, frac = abs(micros % 1_000_000)
        let fracText = String(frac)
        return "\(whole).\(String(repeating: "0", count: 6 - fracText.count))\(fracText)"
    }
}
