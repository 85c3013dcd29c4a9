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
    public var path: String { file.path }
    /// Whether lines carry the rotation rate columns.
    public let includesGyro: Bool
    /// Samples written (or waiting in the buffer).
    public private(set) var samples = 0
    private let file: OutputFile
    private var line = JSONLineWriter(capacity: 128)
    private var pending: [UInt8] = []
    private let flushBytes: Int

    /// Opens `path` as an `OutputFile` (refusing an existing file unless `overwrite`) and writes the header.
    public convenience init(path: String, includesGyro: Bool, overwrite: Bool = false, flushBytes: Int = 4096) throws {
        try self.init(file: OutputFile.open(path: path, overwrite: overwrite), includesGyro: includesGyro, flushBytes: flushBytes)
    }

    /// Writes the header to `file`, which the writer then owns.
    package init(file: OutputFile, includesGyro: Bool, flushBytes: Int = 4096) throws {
        self.file = file
        self.includesGyro = includesGyro
        self.flushBytes = flushBytes
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
        do {
            try file.write(pending)
        } catch let error as OutputFileError {
            throw TraceFileError(message: error.message, readerWentAway: error.readerWentAway)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file.
    public func close() throws {
        try flush()
        try? file.close()
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
    /// The file is a pipe whose reader went away: the recording ends, and that is no error.
    public var readerWentAway = false
    public var description: String { message }
}
