import CGPIODShim
import TiltboardDrivers
#if canImport(Glibc)
import Glibc
#endif

/// Every GPIO call of the package, through the C shim that hides which libgpiod is installed
/// (1.6 on Debian 12, 2.x on Debian 13 / Raspberry Pi OS Trixie).
///
/// Chips are named by path and opened per call, so nothing above holds a chip handle; only a
/// requested line is kept, as a `Line`.
enum Gpiod {
    /// A requested line; valid until `release`.
    struct Line: @unchecked Sendable {
        let raw: OpaquePointer
    }

    /// What a line looks like from outside: its name and who holds it.
    struct LineInfo: Equatable {
        var name: String?
        /// The holder's consumer label; nil when the line is free or the holder gave none.
        var consumer: String?
        var used: Bool
    }

    /// The libgpiod generation the shim was compiled against: 1 or 2.
    static var apiVersion: Int { Int(tb_gpio_api_version()) }

    /// The loaded library's version, e.g. `1.6.3`.
    static var libraryVersion: String { String(cString: tb_gpio_library_version()) }

    static func chipInfo(path: String) -> Result<GPIOChipInfo, GPIOErrno> {
        var lines: UInt32 = 0
        var name = [CChar](repeating: 0, count: textCapacity)
        var label = [CChar](repeating: 0, count: textCapacity)
        let rc = tb_gpio_chip_info(path, &name, name.count, &label, label.count, &lines)
        if rc < 0 { return .failure(GPIOErrno(code: -rc)) }
        return .success(GPIOChipInfo(name: text(name) ?? "", label: text(label) ?? "", path: path, lineCount: Int(lines)))
    }

    /// The offset of the line called `name`; fails with `ENOENT` when the chip has none.
    static func line(path: String, named name: String) -> Result<Int, GPIOErrno> {
        let rc = tb_gpio_find_line(path, name)
        return rc < 0 ? .failure(GPIOErrno(code: -rc)) : .success(Int(rc))
    }

    /// The line's state as the kernel reports it now.
    static func lineInfo(path: String, offset: Int) -> Result<LineInfo, GPIOErrno> {
        guard let offset = UInt32(exactly: offset) else { return .failure(GPIOErrno(code: EINVAL)) }
        var name = [CChar](repeating: 0, count: textCapacity)
        var consumer = [CChar](repeating: 0, count: textCapacity)
        var used: Int32 = 0
        let rc = tb_gpio_line_info(path, offset, &name, name.count, &consumer, consumer.count, &used)
        if rc < 0 { return .failure(GPIOErrno(code: -rc)) }
        return .success(LineInfo(name: text(name), consumer: text(consumer), used: used != 0))
    }

    /// Who holds the line now; nil when nobody named it, it is free, or the chip cannot be read.
    static func currentConsumer(path: String, offset: Int) -> String? {
        guard case let .success(info) = lineInfo(path: path, offset: offset), info.used else { return nil }
        return info.consumer
    }

    /// Requests the line as an output driven to the inactive level from the first instant.
    static func requestOutput(path: String, offset: Int, consumer: String, activeLow: Bool) -> Result<Line, GPIOErrno> {
        guard let offset = UInt32(exactly: offset) else { return .failure(GPIOErrno(code: EINVAL)) }
        var raw: OpaquePointer?
        let rc = tb_gpio_request_output(path, offset, activeLow ? 1 : 0, consumer, 0, &raw)
        return lineOrError(rc, raw)
    }

    /// Requests the line as an input that queues an event on each rising (inactive → active) edge.
    static func requestRisingEdges(path: String, offset: Int, consumer: String, activeLow: Bool) -> Result<Line, GPIOErrno> {
        guard let offset = UInt32(exactly: offset) else { return .failure(GPIOErrno(code: EINVAL)) }
        var raw: OpaquePointer?
        let rc = tb_gpio_request_input(path, offset, activeLow ? 1 : 0, 1, consumer, &raw)
        return lineOrError(rc, raw)
    }

    static func set(_ line: Line, active: Bool) -> GPIOErrno? {
        let rc = tb_gpio_set(line.raw, active ? 1 : 0)
        return rc < 0 ? GPIOErrno(code: -rc) : nil
    }

    static func get(_ line: Line) -> Result<Bool, GPIOErrno> {
        let rc = tb_gpio_get(line.raw)
        return rc < 0 ? .failure(GPIOErrno(code: -rc)) : .success(rc == 1)
    }

    static func release(_ line: Line) {
        tb_gpio_release(line.raw)
    }

    /// Waits on the line's event descriptor and `stopDescriptor` (ignored when negative) until an
    /// edge (consumed), the stop, or `remaining()` reaching 0 (nil: no deadline). EINTR resumes.
    static func waitForEvent(_ line: Line, orStop stopDescriptor: Int32, isStopped: () -> Bool,
                             remaining: (() -> Int64)?) -> Result<EdgeWait, GPIOErrno> {
        let lineDescriptor = tb_gpio_fd(line.raw)
        if lineDescriptor < 0 { return .failure(GPIOErrno(code: -lineDescriptor)) }
        var fds = (pollfd(fd: lineDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0))
        while true {
            if isStopped() { return .success(.stopped) }
            var timeoutMs: Int32 = -1
            if let remaining {
                let left = remaining()
                if left <= 0 { return .success(.deadline) }
                // Rounded up, so the wait never ends just short of the deadline and spins.
                timeoutMs = Int32(clamping: (left + 999_999) / 1_000_000)
            }
            fds.0.revents = 0
            fds.1.revents = 0
            let rc = withUnsafeMutablePointer(to: &fds) {
                $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, timeoutMs) }
            }
            if rc < 0 {
                if errno == EINTR { continue }
                return .failure(.current())
            }
            if fds.1.revents != 0 { return .success(.stopped) }
            if fds.0.revents & Int16(POLLIN) != 0 {
                let read = tb_gpio_read_edge(line.raw)
                return read < 0 ? .failure(GPIOErrno(code: -read)) : .success(.edge)
            }
            if fds.0.revents != 0 { return .failure(GPIOErrno(code: EIO)) }
        }
    }

    /// Reads every queued event without waiting; how many there were.
    static func drainEvents(_ line: Line) -> Result<Int, GPIOErrno> {
        var count = 0
        while true {
            let waited = tb_gpio_wait_edge(line.raw, 0)
            if waited == -EINTR { continue }
            if waited < 0 { return .failure(GPIOErrno(code: -waited)) }
            if waited == 0 { return .success(count) }
            let read = tb_gpio_read_edge(line.raw)
            if read < 0 { return .failure(GPIOErrno(code: -read)) }
            count += 1
        }
    }

    /// The descriptor that becomes readable when an edge is queued, for poll loops.
    static func eventDescriptor(_ line: Line) -> Int32 {
        tb_gpio_fd(line.raw)
    }

    /// Room for a kernel GPIO name, label or consumer (32 bytes in the uAPI) with margin.
    private static let textCapacity = 64

    private static func lineOrError(_ rc: Int32, _ raw: OpaquePointer?) -> Result<Line, GPIOErrno> {
        guard rc == 0, let raw else { return .failure(GPIOErrno(code: rc < 0 ? -rc : EIO)) }
        return .success(Line(raw: raw))
    }

    private static func text(_ buffer: [CChar]) -> String? {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
