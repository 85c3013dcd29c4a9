import CGPIOD
#if canImport(Glibc)
import Glibc
#endif

/// Every libgpiod 1.6 call of the package, and nothing else.
///
/// Raspberry Pi OS Trixie ships libgpiod 2.x, whose API is different; its backend will sit beside
/// this file, so the code above it sees only these handles and errno values.
enum Gpiod1 {
    /// An open `/dev/gpiochipN`; closing it also releases every line requested through it.
    struct Chip: @unchecked Sendable {
        let raw: OpaquePointer
    }

    /// A line of an open chip; valid until its chip is closed.
    struct Line: @unchecked Sendable {
        let raw: OpaquePointer
    }

    static func openChip(path: String) -> Result<Chip, GPIOErrno> {
        guard let raw = gpiod_chip_open(path) else { return .failure(GPIOErrno.current()) }
        return .success(Chip(raw: raw))
    }

    static func close(_ chip: Chip) {
        gpiod_chip_close(chip.raw)
    }

    static func info(_ chip: Chip, path: String) -> GPIOChipInfo {
        GPIOChipInfo(name: text(gpiod_chip_name(chip.raw)) ?? "",
                     label: text(gpiod_chip_label(chip.raw)) ?? "",
                     path: path,
                     lineCount: Int(gpiod_chip_num_lines(chip.raw)))
    }

    static func line(_ chip: Chip, offset: Int) -> Result<Line, GPIOErrno> {
        guard offset >= 0, offset <= Int(UInt32.max),
              let raw = gpiod_chip_get_line(chip.raw, UInt32(offset)) else {
            return .failure(offset < 0 ? GPIOErrno(code: EINVAL) : GPIOErrno.current())
        }
        return .success(Line(raw: raw))
    }

    /// The line called `name`; fails with `ENOENT` when the chip has none.
    static func line(_ chip: Chip, named name: String) -> Result<Line, GPIOErrno> {
        errno = 0
        guard let raw = gpiod_chip_find_line(chip.raw, name) else {
            let e = GPIOErrno.current()
            return .failure(e.code == 0 ? GPIOErrno(code: ENOENT) : e)
        }
        return .success(Line(raw: raw))
    }

    static func offset(_ line: Line) -> Int {
        Int(gpiod_line_offset(line.raw))
    }

    static func name(_ line: Line) -> String? {
        text(gpiod_line_name(line.raw))
    }

    /// Who holds the line now, as the kernel reports it; nil when nobody named it or it is free.
    static func currentConsumer(_ line: Line) -> String? {
        _ = gpiod_line_update(line.raw)
        guard gpiod_line_is_used(line.raw) else { return nil }
        return text(gpiod_line_consumer(line.raw))
    }

    /// Requests the line as an output driven to the inactive level from the first instant.
    static func requestOutput(_ line: Line, consumer: String, activeLow: Bool) -> GPIOErrno? {
        request(line, consumer: consumer, type: GPIOD_LINE_REQUEST_DIRECTION_OUTPUT, activeLow: activeLow)
    }

    /// Requests the line as an input that queues an event on each rising (inactive → active) edge.
    static func requestRisingEdges(_ line: Line, consumer: String, activeLow: Bool) -> GPIOErrno? {
        request(line, consumer: consumer, type: GPIOD_LINE_REQUEST_EVENT_RISING_EDGE, activeLow: activeLow)
    }

    private static func request(_ line: Line, consumer: String, type: Int, activeLow: Bool) -> GPIOErrno? {
        consumer.withCString { cConsumer in
            var config = gpiod_line_request_config(
                consumer: cConsumer,
                request_type: Int32(type),
                flags: activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0)
            return gpiod_line_request(line.raw, &config, 0) == 0 ? nil : GPIOErrno.current()
        }
    }

    static func set(_ line: Line, active: Bool) -> GPIOErrno? {
        gpiod_line_set_value(line.raw, active ? 1 : 0) == 0 ? nil : GPIOErrno.current()
    }

    static func get(_ line: Line) -> Result<Bool, GPIOErrno> {
        let value = gpiod_line_get_value(line.raw)
        return value < 0 ? .failure(GPIOErrno.current()) : .success(value == 1)
    }

    static func release(_ line: Line) {
        gpiod_line_release(line.raw)
    }

    /// Waits for one queued edge and consumes it: true for an edge, false on timeout or a signal.
    static func waitForEvent(_ line: Line, timeoutNanoseconds: Int64) -> Result<Bool, GPIOErrno> {
        let clamped = max(0, timeoutNanoseconds)
        var timeout = timespec(tv_sec: Int(clamped / 1_000_000_000), tv_nsec: Int(clamped % 1_000_000_000))
        switch gpiod_line_event_wait(line.raw, &timeout) {
        case 0:
            return .success(false)
        case 1:
            var event = gpiod_line_event()
            return gpiod_line_event_read(line.raw, &event) == 0 ? .success(true) : .failure(GPIOErrno.current())
        default:
            let e = GPIOErrno.current()
            // A signal (SIGTERM during a wait) is a reason to return and let the caller check its flags.
            return e.code == EINTR ? .success(false) : .failure(e)
        }
    }

    /// The descriptor that becomes readable when an edge is queued, for poll loops.
    static func eventDescriptor(_ line: Line) -> Int32 {
        gpiod_line_event_get_fd(line.raw)
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer, pointer.pointee != 0 else { return nil }
        return String(cString: pointer)
    }
}
