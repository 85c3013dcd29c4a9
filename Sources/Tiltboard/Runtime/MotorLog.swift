#if canImport(Glibc)
import Glibc
#endif

/// Appends each motor line change to a file as `<seconds> <0|1>`, one line per change, so another
/// program can watch a simulated motor (`"motorLog"` in a simulated board's settings).
public final class MotorLog: Sendable {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw BoardFileError(file: path, key: "simulation.motorLog",
                                 message: "cannot open \(path) for appending: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Appends one change; a single `write` of a short line, so concurrent readers see whole lines.
    public func append(t: Double, active: Bool) {
        let line = "\(Self.format(t)) \(active ? 1 : 0)\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
    }

    static func format(_ t: Double) -> String {
        let micros = Int64((t * 1e6).rounded())
        let whole = micros / 1_000_000, frac = abs(micros % 1_000_000)
        let fracText = String(frac)
        return "\(whole).\(String(repeating: "0", count: 6 - fracText.count))\(fracText)"
    }
}
