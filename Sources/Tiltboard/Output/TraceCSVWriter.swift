import Foundation
import TiltboardCore
import TiltboardLinux

/// Writes samples as the CSV trace the simulator replays (`TraceMotion(csv:)`):
/// a `t,ax,ay,az[,gx,gy,gz]` header, then one line per sample (seconds, g, °/s).
///
/// Lines are built in a reusable buffer and written out whenever `flushBytes` have gathered
/// (and on `flush()`/`close()`), so a killed recording keeps everything up to the last flush and
/// the per-sample path does not allocate.
public final class TraceCSVWriter {
    /// The file being written.
    public let path: String
    /// Whether lines carry the rotation rate columns.
    public let includesGyro: Bool
    /// Samples written (or waiting in the buffer).
    public private(set) var samples = 0
    private let handle: FileHandle
    private var line = JSONLineWriter(capacity: 128)
    private var pending: [UInt8] = []
    private let flushBytes: Int

    /// Creates `path` (failing when it exists unless `overwrite`) and writes the header.
    public init(path: String, includesGyro: Bool, overwrite: Bool = false, flushBytes: Int = 4096) throws {
        self.path = path
        self.includesGyro = includesGyro
        self.flushBytes = flushBytes
        let fm = FileManager.default
        if fm.fileExists(atPath: path) && !overwrite {
            throw TraceFileError(message: "\(path) already exists: choose another name or pass --force to replace it")
        }
        guard fm.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw TraceFileError(message: "cannot create \(path): check that its folder exists and is writable")
        }
        self.handle = handle
        pending.reserveCapacity(flushBytes + 256)
        let header = includesGyro ? "t,ax,ay,az,gx,gy,gz\n" : "t,ax,ay,az\n"
        pending.append(contentsOf: header.utf8)
        try flush()
    }

    /// Appends one sample; writes to the file when the buffer is full.
    public func append(t: Double, accel: Vector3, gyro: Vector3?) throws {
        number(t, 6)
        field(accel.x, 6); field(accel.y, 6); field(accel.z, 6)
        if includesGyro {
            let g = gyro ?? .zero
            field(g.x, 4); field(g.y, 4); field(g.z, 4)
        }
        pending.append(UInt8(ascii: "\n"))
        samples += 1
        if pending.count >= flushBytes { try flush() }
    }

    /// Writes what is buffered to the file.
    public func flush() throws {
        guard !pending.isEmpty else { return }
        if let code = pending.withUnsafeBytes({ OutputFailure.write(fd: handle.fileDescriptor, $0) }) {
            throw TraceFileError(message: OutputFailure.Failure(what: path, errno: code).description)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file.
    public func close() throws {
        try flush()
        try? handle.close()
    }

    private func field(_ value: Double, _ digits: Int) {
        pending.append(UInt8(ascii: ","))
        number(value, digits)
    }

    private func number(_ value: Double, _ digits: Int) {
        line.reset()
        line.rawNumber(value, fractionDigits: digits)
        pending.append(contentsOf: line.bytes)
    }
}

/// A trace file that cannot be written.
public struct TraceFileError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}
